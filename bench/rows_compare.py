#!/usr/bin/env python3
"""Softmax and layernorm over rows of 128 to 32768 elements, side by side.

Also reductions over the leading axis: a column sum of f32 16384x4096 and
softmax over axis 0 of f32 8192x4096 and (held out) 4999x1003, which opfuse
compiles as one strided-row kernel each.

For each row length L the input holds 2^26 f32 elements (rows = 2^26 / L,
256 MiB, as examples/softmax.mlir and examples/layernorm.mlir), so every
point moves the same bytes. PyTorch eager, torch.compile and opfuse run in
this one script on the same GPU, timed as compare.py times them (CUDA
events after warm-up, P50 and P99); % of copy divides by a same-run
device-to-device copy.

    python3 bench/rows_compare.py [--opt-fuse build/bin/opt-fuse]
        [--lengths 128 1024 4096 32768] [--row-elements-per-thread 32]
"""
import argparse
import os
import sys
import tempfile

import torch
from compare import ROOT, copy_gbs, run_opfuse, time_cuda
from torch_graphs import layernorm, softmax

ELEMENTS = 1 << 26


def softmax_model(rows, length):
    t = f"tensor<{rows}x{length}xf32>"
    return (f"func.func @softmax(%x: {t}) -> {t} {{\n"
            f"  %0 = fuse.softmax %x axis = 1 : {t}\n"
            f"  return %0 : {t}\n}}\n")


def layernorm_model(rows, length):
    t, p = f"tensor<{rows}x{length}xf32>", f"tensor<{length}xf32>"
    return (f"func.func @layernorm(%x: {t}, %g: {p}, %b: {p}) -> {t} {{\n"
            f"  %0 = fuse.layer_norm %x scale %g bias %b axis = 1 "
            f"epsilon = 1.0e-05 : ({t}, {p}, {p}) -> {t}\n"
            f"  return %0 : {t}\n}}\n")


def column_sum_model(rows, length):
    t, r = f"tensor<{rows}x{length}xf32>", f"tensor<{length}xf32>"
    return (f"func.func @column_sum(%x: {t}) -> {r} {{\n"
            f"  %0 = fuse.reduce_sum %x axes = [0] : {t} -> {r}\n"
            f"  return %0 : {r}\n}}\n")


def softmax0_model(rows, length):
    t = f"tensor<{rows}x{length}xf32>"
    return (f"func.func @softmax0(%x: {t}) -> {t} {{\n"
            f"  %0 = fuse.softmax %x axis = 0 : {t}\n"
            f"  return %0 : {t}\n}}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse", default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--lengths", type=int, nargs="*",
                        default=[128, 1024, 4096, 32768])
    parser.add_argument("--row-elements-per-thread", default="32")
    args = parser.parse_args()

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    copy = copy_gbs(2 * 4 * ELEMENTS, args.warmup, args.iters)
    rows_out = []
    with tempfile.TemporaryDirectory() as tmp:
        for length in args.lengths:
            rows = ELEMENTS // length
            x = torch.randn(rows, length, device="cuda")
            gamma = torch.rand(length, device="cuda") + 0.5
            beta = torch.randn(length, device="cuda")
            for name, fn, model, inputs in (
                    ("softmax", softmax, softmax_model(rows, length), [x]),
                    ("layernorm", layernorm, layernorm_model(rows, length),
                     [x, gamma, beta])):
                nbytes = sum(t.numel() * 4 for t in inputs) + x.numel() * 4
                compiled = torch.compile(fn, dynamic=False)
                compiled(*inputs)
                for label, call in (("eager", lambda: fn(*inputs)),
                                    ("torch.compile", lambda: compiled(*inputs))):
                    p50, p99 = time_cuda(call, args.warmup, args.iters)
                    gbs = nbytes / (p50 * 1e3)
                    rows_out.append((name, length, label, p50, p99, gbs,
                                     100 * gbs / copy))
                path = os.path.join(tmp, f"{name}_{length}.mlir")
                with open(path, "w") as f:
                    f.write(model)
                result = run_opfuse(
                    args.opt_fuse, path, args.warmup, args.iters,
                    ["--row-elements-per-thread", args.row_elements_per_thread])
                p50 = result["latency"]["p50_us"]
                p99 = result["latency"]["p99_us"]
                gbs = nbytes / (p50 * 1e3)
                rows_out.append((name, length, "opfuse", p50, p99, gbs,
                                 100 * gbs / copy))
                torch._dynamo.reset()

        # Reductions over the leading axis (strided rows): a column sum,
        # and a softmax over axis 0 at a tuned shape and a ragged held-out
        # one. Bytes: inputs + outputs.
        for name, rows, length in (("colsum", 16384, 4096),
                                   ("softmax0", 8192, 4096),
                                   ("softmax0", 4999, 1003)):
            x = torch.randn(rows, length, device="cuda")
            if name == "colsum":
                fn = lambda t: torch.sum(t, dim=0)
                model = column_sum_model(rows, length)
                nbytes = x.numel() * 4 + length * 4
            else:
                fn = lambda t: torch.softmax(t, dim=0)
                model = softmax0_model(rows, length)
                nbytes = 2 * x.numel() * 4
            compiled = torch.compile(fn, dynamic=False)
            compiled(x)
            for label, call in (("eager", lambda: fn(x)),
                                ("torch.compile", lambda: compiled(x))):
                p50, p99 = time_cuda(call, args.warmup, args.iters)
                gbs = nbytes / (p50 * 1e3)
                rows_out.append((name, f"{rows}x{length}", label, p50, p99,
                                 gbs, 100 * gbs / copy))
            path = os.path.join(tmp, f"{name}_{rows}x{length}.mlir")
            with open(path, "w") as f:
                f.write(model)
            result = run_opfuse(args.opt_fuse, path, args.warmup, args.iters)
            p50, p99 = result["latency"]["p50_us"], result["latency"]["p99_us"]
            gbs = nbytes / (p50 * 1e3)
            rows_out.append((name, f"{rows}x{length}", "opfuse", p50, p99,
                             gbs, 100 * gbs / copy))
            torch._dynamo.reset()

    print(f"copy: {copy:.0f} GB/s")
    print(f"{'graph':<10} {'row':>10} {'framework':<14} {'p50 us':>9} "
          f"{'p99 us':>9} {'GB/s':>7} {'% copy':>7}")
    for name, length, label, p50, p99, gbs, pct in rows_out:
        print(f"{name:<10} {length:>10} {label:<14} {p50:>9.1f} {p99:>9.1f} "
              f"{gbs:>7.0f} {pct:>6.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
