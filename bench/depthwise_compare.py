#!/usr/bin/env python3
"""Depthwise and grouped convolutions: opfuse's windows against PyTorch.

Runs on the GPU machine, one script, one GPU. Each case is a grouped
conv2d with its bias and activation (ReLU6 for MobileNet's, none for
ConvNeXt's), NHWC in opfuse (fuse-decompose writes it as the strided
windows of the padded input, one loop kernel) and the same bytes in
PyTorch (NCHW tensors in channels_last memory), timed by CUDA events
after warm-up, P50 and P99: eager (cuDNN), torch.compile in the three
modes compare.py times (`--modes`), and opfuse (`opt-fuse FILE --bench`,
the faster of its CUDA graph and step launches). PyTorch is timed around
its Python call, its launch included, and eager also from a CUDA graph
("eager, CUDA graph": cuDNN's kernels alone). GB/s counts input, filter, bias and output
once; "% copy" divides by a device copy in the same run. Every opfuse
case is first checked against the reference (`--check`).

The cases were written down before the windows kernel was first timed
(2026-12-05): MobileNetV2's depthwise layers at batch 32 (3x3, stride 1
and 2), ConvNeXt-Tiny's 7x7 at its first stage, and three of no network:
f32, f16 with 5x5 taps over a ragged image, and groups of 4 channels.
Four cases of wider groups (more than 64 products an output, one GEMM per
group) were added before those kernels were first timed (2026-12-05):
ResNeXt-50's, RegNetY's and two f16 groups of 64 channels. Five
held-out cases (heldout_*) were added before the windows took one vector a
thread and FMAs (2026-12-05, later); three more (rows_heldout_*) before
--window-rows was first timed.

    python3 bench/depthwise_compare.py [--opt-fuse build/bin/opt-fuse]
        [--iters 100] [--cases NAME ...] [--no-peers] [--tilings T ...]
        [--window-rows N ...] [--no-check]
        [--modes [MODE ...]]
"""
import argparse
import os
import subprocess
import tempfile

import torch
import torch.nn.functional as F

from build_env import env_for
from compare import MODES, ROOT, copy_gbs, run_opfuse, time_cuda
from gemm_compare import graphed

# name: (N, H, W, C, F, KH, stride, pad, per-group input channels, dtype,
#        activation)
CASES = {
    "mbv2_dw_112x32": (32, 112, 112, 32, 32, 3, 1, 1, 1, "bf16", "relu6"),
    "mbv2_dw_112x96_s2": (32, 112, 112, 96, 96, 3, 2, 1, 1, "bf16", "relu6"),
    "mbv2_dw_14x576": (32, 14, 14, 576, 576, 3, 1, 1, 1, "bf16", "relu6"),
    "convnext_dw7_56x96": (32, 56, 56, 96, 96, 7, 1, 3, 1, "bf16", None),
    "dw_f32_56x144": (8, 56, 56, 144, 144, 3, 1, 1, 1, "f32", "relu6"),
    "dw5_f16_ragged": (3, 57, 43, 40, 40, 5, 2, 2, 1, "f16", None),
    "grouped4_bf16": (16, 28, 28, 64, 64, 3, 1, 1, 4, "bf16", "relu6"),
    # Wider groups, one GEMM per group (more than 64 products an output):
    # ResNeXt-50 32x4d's 3x3 of its second and last stages, RegNetY-1.6GF's
    # groups of 24 and, of no network, two f16 groups of 64 channels.
    "resnext50_g32x8_28": (32, 28, 28, 256, 256, 3, 1, 1, 8, "bf16", "relu"),
    "resnext50_g32x32_s2": (32, 14, 14, 1024, 1024, 3, 2, 1, 32, "bf16",
                            "relu"),
    "regnety_g24_28": (32, 28, 28, 120, 120, 3, 1, 1, 24, "bf16", "relu"),
    "grouped2x64_f16": (8, 33, 35, 128, 128, 3, 1, 1, 64, "f16", None),
    # Held out from the choice of one vector a thread for windows of many
    # loads and of FMAs for their sums (tuned on convnext_dw7_56x96 and the
    # MobileNetV2 cases), written down before those builds were timed: 5x5
    # and 7x7 taps of no network at other dtypes, ragged images and batch 1.
    "heldout_dw5_bf16_56x128": (32, 56, 56, 128, 128, 5, 1, 2, 1, "bf16",
                                None),
    "heldout_dw7_f16_ragged": (8, 45, 37, 120, 120, 7, 1, 3, 1, "f16", None),
    "heldout_dw7_f32_28x192": (16, 28, 28, 192, 192, 7, 1, 3, 1, "f32",
                               None),
    "heldout_dw3_bf16_s2_ragged": (16, 75, 61, 72, 72, 3, 2, 1, 1, "bf16",
                                   "relu6"),
    "heldout_dw7_bf16_batch1": (1, 14, 14, 384, 384, 7, 1, 3, 1, "bf16",
                                None),
    # Held out from the choice of --window-rows' default (made on the cases
    # above), written down before any --window-rows build was timed
    # (2026-12-05, evening): ConvNeXt-Tiny's third-stage 7x7, a ragged f16
    # 3x3 with ReLU6 and a ragged f32 5x5.
    "rows_heldout_dw7_bf16_14x384": (32, 14, 14, 384, 384, 7, 1, 3, 1,
                                     "bf16", None),
    "rows_heldout_dw3_f16_ragged": (12, 51, 67, 48, 48, 3, 1, 1, 1, "f16",
                                    "relu6"),
    "rows_heldout_dw5_f32_ragged": (4, 39, 53, 88, 88, 5, 1, 2, 1, "f32",
                                    None),
}
TORCH_DTYPE = {"bf16": torch.bfloat16, "f16": torch.float16,
               "f32": torch.float32}


def shapes(case):
    n, h, w, c, f, k, s, p, cg, _, _ = case
    oh = (h + 2 * p - k) // s + 1
    ow = (w + 2 * p - k) // s + 1
    return (n, h, w, c), (f, k, k, cg), (n, oh, ow, f)


def filter_values(case):
    """The filter, fixed: a constant in the model as an imported network's
    weights are (fuse-decompose then gives each tap's weights as a vector
    of their own), the same values in PyTorch."""
    _, ws, _ = shapes(case)
    count = ws[0] * ws[1] * ws[2] * ws[3]
    return [((i * 37) % 17 - 8) / 16.0 for i in range(count)]


def model_text(case):
    n, h, w, c, f, k, s, p, cg, dtype, act = case
    xs, ws, ys = shapes(case)
    t = lambda shape: "tensor<" + "x".join(map(str, shape)) + f"x{dtype}>"
    flat = filter_values(case)

    def nested(values, dims):
        if len(dims) == 1:
            return "[" + ", ".join(repr(v) for v in values) + "]"
        step = len(values) // dims[0]
        return "[" + ", ".join(nested(values[i * step:(i + 1) * step],
                                      dims[1:])
                               for i in range(dims[0])) + "]"
    lines = [
        f"func.func @conv(%x: {t(xs)}, %b: {t((f,))}) -> {t(ys)} {{",
        f"  %w = fuse.constant dense<{nested(flat, ws)}> : {t(ws)}",
        f"  %0 = fuse.conv2d %x, %w strides = [{s}, {s}] padding = "
        f"[{p}, {p}, {p}, {p}] dilation = [1, 1] groups = {c // cg} : "
        f"({t(xs)}, {t(ws)}) -> {t(ys)}",
        f"  %1 = fuse.add %0, %b : ({t(ys)}, {t((f,))}) -> {t(ys)}"]
    out = "%1"
    if act == "relu6":
        lines += [
            f"  %z = fuse.constant dense<0.0> : tensor<{dtype}>",
            f"  %six = fuse.constant dense<6.0> : tensor<{dtype}>",
            f"  %2 = fuse.max %1, %z : ({t(ys)}, tensor<{dtype}>) -> {t(ys)}",
            f"  %3 = fuse.min %2, %six : ({t(ys)}, tensor<{dtype}>) -> "
            f"{t(ys)}"]
        out = "%3"
    elif act == "relu":
        lines += [f"  %2 = fuse.relu %1 : {t(ys)}"]
        out = "%2"
    lines += [f"  return {out} : {t(ys)}", "}"]
    return "\n".join(lines) + "\n"


def torch_fn(case):
    n, h, w, c, f, k, s, p, cg, dtype, act = case

    def fn(x, weight, bias):
        y = F.conv2d(x, weight, bias, stride=s, padding=p, groups=c // cg)
        if act == "relu":
            return torch.relu(y)
        return torch.clamp(y, 0, 6) if act == "relu6" else y
    return fn


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse",
                        default=os.path.join(ROOT, "build/bin/opt-fuse"))
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--cases", nargs="*", default=list(CASES))
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--modes", nargs="*",
                        default=[label for label, _ in MODES],
                        help="torch.compile modes to time (default: all of "
                             "compare.py's; none with an empty list)")
    parser.add_argument("--tilings", nargs="*", default=[],
                        help="also time opfuse with each --matmul-tiling "
                             "(the cases whose groups run on GEMM kernels)")
    parser.add_argument("--window-rows", nargs="*", type=int, default=[],
                        help="also time opfuse with each --window-rows "
                             "(the cases that run as windows)")
    parser.add_argument("--no-check", action="store_true",
                        help="time without running --check first (its "
                             "host reference takes up to a minute a case)")
    args = parser.parse_args()
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    work = tempfile.mkdtemp(prefix="depthwise_")
    print(f"{'case':<22} {'system':<18} {'p50 us':>9} {'p99 us':>9} "
          f"{'GB/s':>8} {'% copy':>7} {'TFLOP/s':>8}  note", flush=True)
    for name in args.cases:
        case = CASES[name]
        xs, ws, ys = shapes(case)
        # Multiply-adds: each output sums KH x KW x (channels a group).
        flops = 2 * ys[0] * ys[1] * ys[2] * ys[3] * ws[1] * ws[2] * ws[3]

        def row(name, label, p50, p99, gbs, pct, note):
            # Printed as it comes, so a run cut short keeps what it measured.
            print(f"{name:<22} {label:<18} {p50:9.2f} {p99:9.2f} {gbs:8.1f} "
                  f"{pct:7.1f} {flops / (p50 * 1e6):8.1f}  {note}",
                  flush=True)
        dtype = TORCH_DTYPE[case[9]]
        size = torch.tensor([], dtype=dtype).element_size()
        nbytes = size * (xs[0] * xs[1] * xs[2] * xs[3] + ws[0] * ws[1] *
                         ws[2] * ws[3] + ws[0] + ys[0] * ys[1] * ys[2] * ys[3])
        copy = copy_gbs(nbytes, args.warmup, args.iters)
        path = os.path.join(work, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(model_text(case))

        def verdict(extra):
            if args.no_check:
                return "not checked"
            check = subprocess.run([args.opt_fuse, path, "--check", *extra],
                                   capture_output=True, text=True,
                                   env=env_for(args.opt_fuse))
            return ("--check PASS" if check.returncode == 0
                    else f"--check exit {check.returncode}")

        def variant(label, extra):
            note = verdict(extra)
            result = run_opfuse(args.opt_fuse, path, args.warmup, args.iters,
                                extra)
            p50, p99 = (result["latency"]["p50_us"],
                        result["latency"]["p99_us"])
            gbs = nbytes / (p50 * 1e3)
            row(name, label[:18], p50, p99, gbs, 100 * gbs / copy,
                f"{note}, {len(result['kernels'])} kernel(s)")
        if not args.no_peers:
            n, h, w, c = xs
            x = torch.randn(n, c, h, w, device="cuda", dtype=dtype).to(
                memory_format=torch.channels_last)
            # OHWI values as OIHW, channels_last: the same bytes.
            weight = torch.tensor(filter_values(case), dtype=dtype,
                                  device="cuda").reshape(ws).permute(
                0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
            bias = torch.randn(ws[0], device="cuda", dtype=dtype)
            fn = torch_fn(case)
            # Eager PyTorch timed around its Python call (its launch
            # included, as compare.py does), and its kernels alone,
            # replayed from a CUDA graph.
            replay = graphed(lambda: fn(x, weight, bias))
            systems = [("eager", lambda: fn(x, weight, bias)),
                       ("eager, CUDA graph", replay)]
            for label, options in MODES:
                if label not in args.modes:
                    continue
                torch._dynamo.reset()
                compiled = torch.compile(fn, dynamic=False, **options)
                systems.append((label, lambda c=compiled: c(x, weight, bias)))
            for label, call in systems:
                call()
                p50, p99 = time_cuda(call, args.warmup, args.iters)
                gbs = nbytes / (p50 * 1e3)
                row(name, label, p50, p99, gbs, 100 * gbs / copy, "")
            torch._dynamo.reset()
        variant("opfuse", [])
        if case[5] * case[5] * case[8] <= 64:
            for rows in args.window_rows:
                variant(f"window rows {rows}", [f"--window-rows={rows}"])
            continue
        for tiling in args.tilings:
            variant(tiling, [f"--matmul-tiling={tiling}"])


if __name__ == "__main__":
    main()
