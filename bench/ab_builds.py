#!/usr/bin/env python3
"""Two or more opt-fuse builds on the same kernels, order rotated each round.

Runs `BUILD FILE [ARGS] --bench --iters N` for every build and every
kernel, rotating the builds' order every round (the first run after
another kernel is not always the same build), and prints the median over
the rounds of each build's P50 and "% of copy". This is how
docs/benchmarks.md compares a change with the build before it.

    python3 bench/ab_builds.py --build old=/tmp/old/bin/opt-fuse \\
        --build new=build/bin/opt-fuse --rounds 4 \\
        bench/variants/f32_chain.mlir:--function=chain bench/heldout/ew_*.mlir

A kernel is FILE or FILE:ARGS (ARGS split on commas, e.g.
`f.mlir:--function=chain,--vectors-per-thread=1`). A build is NAME=PATH;
a build's libopfuse is found next to it (../lib) when that exists.
"""
import argparse
import re
import statistics
import subprocess
import sys

from build_env import env_for


def parse_build(text):
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=PATH, got '{text}'")
    return name, path


def run(path, kernel, iters):
    file, _, args = kernel.partition(":")
    command = [path, file] + [a for a in args.split(",") if a] + [
        "--bench", "--iters", str(iters)]
    done = subprocess.run(command, capture_output=True, text=True,
                          env=env_for(path))
    if done.returncode != 0:
        sys.exit(f"ab_builds: {' '.join(command)} exited {done.returncode}:\n"
                 + done.stderr.strip())
    p50 = re.search(r"latency \(us\): p50 ([0-9.]+)", done.stdout)
    copy = re.search(r"([0-9.]+)% of copy", done.stdout)
    if not p50:
        sys.exit(f"ab_builds: no latency line in the output of {' '.join(command)}")
    return float(p50.group(1)), float(copy.group(1)) if copy else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=parse_build, action="append", required=True,
                        help="NAME=PATH of an opt-fuse (twice or more)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--iters", type=int, default=300)
    parser.add_argument("kernels", nargs="+", help="FILE or FILE:ARGS")
    options = parser.parse_args()
    if len(options.build) < 2:
        parser.error("give at least two --build")
    results = {}
    builds = options.build
    for round_ in range(options.rounds):
        order = builds[round_ % len(builds):] + builds[:round_ % len(builds)]
        for kernel in options.kernels:
            for name, path in order:
                results.setdefault((kernel, name), []).append(run(path, kernel, options.iters))
    for kernel in options.kernels:
        cells = []
        for name, _ in builds:
            runs = results[(kernel, name)]
            cells.append(f"{name} {statistics.median(r[0] for r in runs):8.2f} us "
                         f"{statistics.median(r[1] for r in runs):6.1f}%")
        print(f"{kernel:60s} " + "   ".join(cells))


if __name__ == "__main__":
    main()
