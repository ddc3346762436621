#!/usr/bin/env python3
"""Side-by-side benchmark: PyTorch eager, three torch.compile modes, opfuse.

Runs on the GPU machine, in one process per framework but one script and
one GPU: the same graphs, shapes and dtypes; CUDA-event timing after
warm-up; P50 and P99 over the same number of runs. torch.compile runs in
its default mode, "max-autotune-no-cudagraphs" and "reduce-overhead" (CUDA
graphs). GB/s counts the bytes of the graph's inputs and outputs (what a
perfectly fused kernel moves), for every framework alike, and % of copy
divides by a device-to-device copy measured in the same run. Kernels
launched per call: PyTorch's counted with torch.profiler, opfuse's from its
plan; a CUDA graph hides its kernels from the profiler, so reduce-overhead
has none counted. Whole blocks, with their peak memory, are
block_compare.py's.

    python3 bench/compare.py --opt-fuse build/bin/opt-fuse [--iters 100]
"""
import argparse
import json
import os
import subprocess
import sys

import torch
from build_env import env_for
from torch_graphs import GRAPHS as TORCH_GRAPHS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# compare.py times the memory-bound graphs (gemm_compare.py the GEMMs):
# elementwise chains, row reductions and data movement, the last two of
# which are held out (not tuned on).
GRAPHS = {name: TORCH_GRAPHS[name]
          for name in ("ew_chain", "bias_gelu_residual", "softmax", "layernorm",
                       "transpose_f32", "transpose_bf16", "heads_bf16",
                       "transpose_ragged_f32", "rotary_bf16")}


# The torch.compile modes every comparison script times.
MODES = (("torch.compile", {}),
         ("max-autotune-no-cg", {"mode": "max-autotune-no-cudagraphs"}),
         ("reduce-overhead", {"mode": "reduce-overhead"}))


def count_kernels(fn, inputs):
    """CUDA kernels one call of fn launches (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile
    fn(*inputs)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn(*inputs)
        torch.cuda.synchronize()
    return sum(1 for e in prof.events()
               if e.device_type == torch.autograd.DeviceType.CUDA)


def percentile(samples, q):
    ordered = sorted(samples)
    index = max(0, min(len(ordered) - 1, int(-(-q * len(ordered) // 1)) - 1))
    return ordered[index]


def time_cuda(fn, warmup, iters, before=None):
    """P50 and P99 microseconds of `fn` by CUDA events after `warmup`
    calls; `before` (untimed) runs ahead of each timed call, e.g. a
    barrier of the processes of a distributed run."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    for _ in range(iters):
        if before is not None:
            before()
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1000.0)  # us
    return percentile(samples, 0.5), percentile(samples, 0.99)


def copy_gbs(nbytes, warmup, iters):
    nbytes = max(nbytes // 2, 256 << 20)
    src = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    p50, _ = time_cuda(lambda: dst.copy_(src), warmup, iters)
    return 2 * nbytes / (p50 * 1e3)


def attention_parser(description, warmup, iters):
    """The arguments the attention comparisons share: opt-fuse, timing,
    the --attention-tiling values to try and a JSON copy of the rows."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--opt-fuse",
                        default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--warmup", type=int, default=warmup)
    parser.add_argument("--iters", type=int, default=iters)
    parser.add_argument("--tilings", nargs="*", default=["auto"],
                        help="--attention-tiling values for opfuse")
    parser.add_argument("--json", help="also write the rows to this file")
    return parser


def run_opfuse(opt_fuse, model, warmup, iters, extra=()):
    command = [opt_fuse, os.path.join(ROOT, model), "--bench", "--json",
               "--warmup", str(warmup), "--iters", str(iters), *extra]
    done = subprocess.run(command, capture_output=True, text=True,
                          env=env_for(opt_fuse))
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n"
                           f"{done.stderr}")
    return json.loads(done.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse", default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--graphs", nargs="*", default=list(GRAPHS))
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    for name in args.graphs:
        model, fn, shapes, dtype = GRAPHS[name]
        generator = torch.Generator(device="cuda").manual_seed(0)
        inputs = [torch.rand(s, device="cuda", dtype=torch.float32,
                             generator=generator).mul_(4).sub_(2).to(dtype)
                  for s in shapes]
        out = fn(*inputs)
        nbytes = sum(t.numel() * t.element_size() for t in inputs) + \
            out.numel() * out.element_size()
        copy = copy_gbs(nbytes, args.warmup, args.iters)
        systems = [("eager", fn)]
        for label, options in MODES:
            torch._dynamo.reset()
            systems.append((label, torch.compile(fn, dynamic=False, **options)))
        for label, call in systems:
            call(*inputs)  # compile, autotune, capture outside the timing
            p50, p99 = time_cuda(lambda: call(*inputs), args.warmup, args.iters)
            kernels = (count_kernels(call, inputs)
                       if label != "reduce-overhead" else None)
            gbs = nbytes / (p50 * 1e3)
            rows.append((name, label, p50, p99, gbs, 100 * gbs / copy, kernels))
        torch._dynamo.reset()
        result = run_opfuse(args.opt_fuse, model, args.warmup, args.iters)
        p50, p99 = result["latency"]["p50_us"], result["latency"]["p99_us"]
        gbs = nbytes / (p50 * 1e3)
        rows.append((name, "opfuse", p50, p99, gbs, 100 * gbs / copy,
                     len(result["kernels"])))
        # Bandwidth references: no latency of their own to print.
        rows.append((name, "(copy)", None, None, copy, 100.0, None))
        rows.append((name, "(opfuse's own copy)", None, None,
                     result["copy_gbs"], 100 * result["copy_gbs"] / copy, None))

    print(f"{'graph':<20} {'framework':<20} {'p50 us':>10} {'p99 us':>10} "
          f"{'GB/s':>8} {'% copy':>7} {'kernels':>7}")
    def us(value):
        return "-" if value is None else f"{value:.1f}"
    for name, label, p50, p99, gbs, pct, kernels in rows:
        k = "-" if kernels is None else str(kernels)
        print(f"{name:<20} {label:<20} {us(p50):>10} {us(p99):>10} "
              f"{gbs:>8.0f} {pct:>6.1f}% {k:>7}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dict(zip(("graph", "framework", "p50_us", "p99_us",
                                 "gbs", "percent_of_copy", "kernels"), r))
                       for r in rows], f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
