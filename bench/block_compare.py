#!/usr/bin/env python3
"""Whole blocks side by side: PyTorch eager, three torch.compile modes, opfuse.

Runs on the GPU machine, one script, one GPU, the blocks of
examples/blocks/ (bench/blocks.py writes both sides): a pre-LN GPT block
and a Llama block at a prefill and a decode size, and a ResNet bottleneck
in NHWC, all bf16. For every system: P50 and P99 latency (CUDA events after
warm-up; opfuse's own --bench, which times its launch plan the same way),
kernels launched per call (PyTorch: counted with torch.profiler; opfuse:
its plan; reduce-overhead's CUDA graph hides its kernels from the
profiler, so none is counted), and peak device memory beyond the inputs and weights
(PyTorch: max_memory_allocated during one call; opfuse: its arena plus its
output buffers, as memory_compare.py counts them, and its arena alone with
--plan-outputs, the outputs planned into it and alive only from the kernel
that writes them, as PyTorch allocates them; reduce-overhead's
memory belongs to its graph pool, allocated at capture, so it reads 0). The prefill blocks'
attention (matmul, softmax, matmul) is also timed on its own, so the rest
of the block can be compared while opfuse's attention is unfused.

    python3 bench/block_compare.py [--opt-fuse build/bin/opt-fuse]
        [--blocks gpt_prefill ...] [--iters 50] [--check]
        [--modes torch.compile max-autotune-no-cg reduce-overhead]
        [--opfuse-also=--early-launch=false] [--build LABEL=OPT_FUSE ...]

`--build` times several opt-fuse builds (an A/B of two builds) in the same
run as the peers, one set of opfuse rows each, labelled; each binary runs
with its own libopfuse (build_env.py).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
from build_env import env_for
from blocks import ATTENTION, BLOCKS, render, torch_block, torch_inputs
from compare import MODES, ROOT, count_kernels, time_cuda
from memory_compare import opfuse_plan, torch_peak_extra

def run_opfuse(opt_fuse, path, warmup, iters, check, flags=()):
    command = [opt_fuse, path, "--bench", "--emit=report-json",
               "--warmup", str(warmup), "--iters", str(iters), *flags]
    env = env_for(opt_fuse)
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr}")
    report = json.loads(done.stdout)
    verdict = ""
    if check:
        done = subprocess.run([opt_fuse, path, "--check", *flags],
                              capture_output=True, text=True, env=env)
        verdict = "PASS" if done.returncode == 0 else f"FAIL (exit {done.returncode})"
    return report, verdict


def measure(name, builder, path, args, rows):
    inputs = torch_inputs(builder)
    fn = torch_block(name)
    systems = [("eager", fn)]
    for label, options in MODES:
        if label not in args.modes:
            continue
        torch._dynamo.reset()
        systems.append((label, torch.compile(fn, dynamic=False, **options)))
    for label, call in systems:
        call(*inputs)  # compile, autotune, capture
        p50, p99 = time_cuda(lambda: call(*inputs), args.warmup, args.iters)
        kernels = count_kernels(call, inputs) if label != "reduce-overhead" else None
        peak = torch_peak_extra(call, inputs)
        rows.append((name, label, p50, p99, kernels, peak, None, ""))
    builds = [tuple(spec.split("=", 1)) for spec in args.build] or \
        [("", args.opt_fuse)]
    for (build, opt_fuse), variant in [(b, v) for b in builds
                                       for v in [""] + args.opfuse_also]:
        flags = variant.split()
        suffix = (f" [{build}]" if build else "") + \
            (f" {variant}" if variant else "")
        report, verdict = run_opfuse(opt_fuse, path, args.warmup,
                                     args.iters, args.check, flags)
        memory = report["memory"]
        measured = report["measured"]
        planned = opfuse_plan(opt_fuse, path, "--plan-outputs",
                              *flags)["arena_bytes"]
        peak = memory["arena_bytes"] + memory["output_bytes"]
        # The plan's steps launched one by one, and replayed as one CUDA
        # graph (what opt-fuse reports as its latency is the faster).
        rows.append((name, "opfuse steps" + suffix, measured["stream_p50_us"],
                     measured["stream_p99_us"], len(report["kernels"]), peak,
                     planned, verdict))
        if "graph_p50_us" in measured:
            rows.append((name, "opfuse graph" + suffix,
                         measured["graph_p50_us"], measured["graph_p99_us"],
                         len(report["kernels"]), peak, planned, verdict))
    torch._dynamo.reset()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse", default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--blocks", nargs="*", default=list(BLOCKS) + [n + "_attention" for n in ATTENTION])
    parser.add_argument("--check", action="store_true",
                        help="also run opt-fuse --check on each block")
    parser.add_argument("--modes", nargs="*", default=[label for label, _ in MODES],
                        help="the torch.compile modes to time (default: all; "
                        "max-autotune-no-cg autotunes for minutes a block)")
    parser.add_argument("--opfuse-also", action="append", default=[],
                        metavar="FLAGS",
                        help="also run opt-fuse with these flags (one row "
                        "each, beside the default run; repeatable), e.g. "
                        "--opfuse-also=--early-launch=false")
    parser.add_argument("--build", action="append", default=[],
                        metavar="LABEL=OPT_FUSE",
                        help="time this opt-fuse build (repeatable; "
                        "default: --opt-fuse alone, unlabelled)")
    args = parser.parse_args()
    torch.manual_seed(0)
    # cuDNN picks its fastest convolution algorithms (the bottleneck's
    # convs run several times slower on its defaults).
    torch.backends.cudnn.benchmark = True
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.blocks:
            if name.endswith("_attention"):
                builder, result = ATTENTION[name[:-len("_attention")]]()
                text = builder.text(result)
            else:
                builder, _ = BLOCKS[name]()
                text = render(name)
            path = os.path.join(tmp, name + ".mlir")
            with open(path, "w") as f:
                f.write(text)
            measure(name, builder, path, args, rows)
    print(f"{'block':<26} {'system':<36} {'p50 us':>9} {'p99 us':>9} "
          f"{'kernels':>7} {'peak MiB':>9} {'planned':>8}  check")
    for name, label, p50, p99, kernels, peak, planned, verdict in rows:
        k = "-" if kernels is None else str(kernels)
        p = "-" if planned is None else f"{planned / 2**20:.1f}"
        print(f"{name:<26} {label:<36} {p50:>9.1f} {p99:>9.1f} {k:>7} "
              f"{peak / 2**20:>9.1f} {p:>8}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
