#!/usr/bin/env python3
"""How far the cost model's predictions are from measured latency.

Runs `opt-fuse MODEL --emit=report-json --bench` on every example and
benchmark graph the GPU emitters support, fused and with --no-fuse, and
compares each kernel's predicted latency with its measured P50 (each kernel
launched alone, timed with CUDA events after warm-up). Prints every kernel,
then the median |predicted - measured| / measured and the worst kernel.

    python3 bench/model_error.py                       # datasheet H200
    python3 bench/model_error.py --target h200.json    # after --calibrate

Models the emitters do not support yet (matmul, reductions, collectives)
are listed as skipped: their predictions exist (--emit=report) but nothing
can be measured.
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNSUPPORTED = 4


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--opt-fuse", default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--target", default="h200")
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--json", help="also write the rows here")
    args = parser.parse_args()

    models = sorted(glob.glob(os.path.join(ROOT, "examples/*.mlir")))
    models += sorted(glob.glob(os.path.join(ROOT, "bench/graphs/*.mlir")))
    rows, skipped = [], []
    for model in models:
        for variant in ("fused", "unfused"):
            command = [args.opt_fuse, model, "--emit=report-json", "--bench",
                       "--iters", str(args.iters), "--target", args.target]
            if variant == "unfused":
                command.append("--no-fuse")
            run = subprocess.run(command, capture_output=True, text=True)
            name = os.path.relpath(model, ROOT)
            if run.returncode == UNSUPPORTED:
                if variant == "fused":
                    skipped.append(name)
                continue
            if run.returncode != 0:
                sys.exit(f"{' '.join(command)} failed ({run.returncode}):\n{run.stderr}")
            report = json.loads(run.stdout)
            for kernel in report["kernels"]:
                m = kernel["measured"]
                rows.append({
                    "model": name, "variant": variant, "kernel": kernel["name"],
                    "ops": ",".join(kernel["ops"]), "bytes": kernel["bytes"],
                    "predicted_us": kernel["predicted_us"],
                    "p50_us": m["p50_us"], "p99_us": m["p99_us"],
                    "error": m["error"], "device": report["measured"]["device"],
                    "target": report["target"]["name"],
                    "source": report["target"]["source"],
                })

    if not rows:
        sys.exit("no kernel could be measured")
    print(f"target: {rows[0]['target']} ({rows[0]['source']}); device: {rows[0]['device']}")
    print(f"{'model':34} {'variant':8} {'kernel':26} {'bytes':>11} "
          f"{'pred us':>9} {'P50 us':>9} {'error':>8}")
    for r in rows:
        print(f"{r['model']:34} {r['variant']:8} {r['kernel']:26} {r['bytes']:>11} "
              f"{r['predicted_us']:>9.2f} {r['p50_us']:>9.2f} {100 * r['error']:>7.1f}%")
    errors = [abs(r["error"]) for r in rows]
    worst = max(rows, key=lambda r: abs(r["error"]))
    print(f"\nkernels: {len(rows)}; median |error| {100 * statistics.median(errors):.1f}%; "
          f"mean {100 * statistics.mean(errors):.1f}%; worst {100 * worst['error']:+.1f}% "
          f"({worst['model']} {worst['variant']} {worst['kernel']}: {worst['ops']}, "
          f"predicted {worst['predicted_us']:.2f} us, measured {worst['p50_us']:.2f} us)")
    if skipped:
        print("not measurable yet (no GPU emitter): " + ", ".join(skipped))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
