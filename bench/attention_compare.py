#!/usr/bin/env python3
"""Side-by-side attention benchmark: opfuse's fused attention kernel against
PyTorch's SDPA backends (flash, cuDNN, memory-efficient), FlexAttention and
torch.compile of the unfused graph, in one run on one GPU.

bf16 forward, B * S = 16k tokens, 16 heads, head dims 64 and 128, sequences
512 to 16k, causal and not (the issue's grid). Every system gets the same
inputs; CUDA-event timing after warm-up, P50 and P99 over the same number
of runs; TFLOP/s from 4 B H S^2 D (halved for causal). A backend that cannot
run a case is reported as "n/a" with its reason. opfuse is timed by
`opt-fuse --bench --json` on a generated fuse.attention model (its own
warm-up and iterations); its accuracy is test/GPU/attention.test's
business (--check against the f64 reference).

    python3 bench/attention_compare.py [--iters 30] [--dims 64 128]
        [--seqs 512 1024 ...] [--tilings auto 128x64 ...] [--json rows.json]
"""
import json
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import attention_parser, run_opfuse, time_cuda  # noqa: E402

TOKENS, HEADS = 16384, 16


def model_text(b, h, s, d, causal):
    t = f"tensor<{b}x{h}x{s}x{d}xbf16>"
    name = f"attention_s{s}_d{d}{'_causal' if causal else ''}"
    return (f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            f"  %o = fuse.attention %q, %k, %v scale = {d ** -0.5:.9e}"
            f"{' causal' if causal else ''} : ({t}, {t}, {t}) -> {t}\n"
            f"  return %o : {t}\n}}\n")


def unfused(q, k, v, causal):
    s = (q @ k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    if causal:
        n = s.shape[-1]
        hidden = torch.ones(n, n, dtype=torch.bool, device=s.device).triu(1)
        s = s.masked_fill(hidden, float("-inf"))
    return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v


def sdpa(backend):
    from torch.nn.attention import sdpa_kernel

    def run(q, k, v, causal):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return run


def systems():
    from torch.nn.attention import SDPBackend
    result = [("sdpa-flash", sdpa(SDPBackend.FLASH_ATTENTION)),
              ("sdpa-cudnn", sdpa(SDPBackend.CUDNN_ATTENTION)),
              ("sdpa-efficient", sdpa(SDPBackend.EFFICIENT_ATTENTION))]
    try:
        from torch.nn.attention.flex_attention import (create_block_mask,
                                                       flex_attention)
        flex = torch.compile(flex_attention, dynamic=False)
        masks = {}

        def run_flex(q, k, v, causal):
            if not causal:
                return flex(q, k, v)
            n = q.shape[-2]
            if n not in masks:
                masks[n] = create_block_mask(
                    lambda b, h, i, j: j <= i, None, None, n, n)
            return flex(q, k, v, block_mask=masks[n])
        result.append(("flex", run_flex))
    except ImportError as error:  # an older torch
        print(f"flex: n/a ({error})")
    compiled = torch.compile(unfused, dynamic=False)
    result.append(("torch.compile", compiled))
    return result


def main():
    parser = attention_parser(__doc__.splitlines()[0], warmup=5, iters=30)
    parser.add_argument("--dims", type=int, nargs="*", default=[64, 128])
    parser.add_argument("--seqs", type=int, nargs="*",
                        default=[512, 1024, 2048, 4096, 8192, 16384])
    parser.add_argument("--causal", choices=["both", "yes", "no"],
                        default="both")
    args = parser.parse_args()

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    rows = []
    work = tempfile.mkdtemp(prefix="attention_compare_")
    causals = {"both": [False, True], "yes": [True], "no": [False]}[args.causal]
    for d in args.dims:
        for s in args.seqs:
            for causal in causals:
                b = max(1, TOKENS // s)
                case = f"d{d} s{s}{' causal' if causal else ''}"
                flops = 4 * b * HEADS * s * s * d / (2 if causal else 1)
                gen = torch.Generator(device="cuda").manual_seed(0)
                q, k, v = (torch.randn(b, HEADS, s, d, device="cuda",
                                       generator=gen).to(torch.bfloat16)
                           for _ in range(3))
                best = None
                # Fresh compiled functions per shape: past dynamo's cache
                # limit a recompiling function falls back to eager.
                torch._dynamo.reset()
                for label, fn in systems():
                    try:
                        fn(q, k, v, causal)
                        p50, p99 = time_cuda(lambda: fn(q, k, v, causal),
                                             args.warmup, args.iters)
                    except Exception as error:  # a backend without the case
                        reason = str(error).splitlines()[0][:80]
                        rows.append((case, label, None, None, None, reason))
                        continue
                    rows.append((case, label, p50, p99, flops / (p50 * 1e6), ""))
                    best = p50 if best is None else min(best, p50)
                path = os.path.join(work, f"a_{d}_{s}_{int(causal)}.mlir")
                with open(path, "w") as f:
                    f.write(model_text(b, HEADS, s, d, causal))
                for tiling in args.tilings:
                    result = run_opfuse(args.opt_fuse, path, args.warmup,
                                        args.iters,
                                        ["--attention-tiling", tiling])
                    p50 = result["latency"]["p50_us"]
                    p99 = result["latency"]["p99_us"]
                    label = "opfuse" + ("" if tiling == "auto" else f" {tiling}")
                    rows.append((case, label, p50, p99, flops / (p50 * 1e6),
                                 f"{best / p50:.2f}x the fastest torch"
                                 if best else ""))
                del q, k, v
                torch.cuda.empty_cache()
    print(f"{'case':<18} {'system':<18} {'p50 us':>10} {'p99 us':>10} "
          f"{'TFLOP/s':>8}  note")
    for case, label, p50, p99, tflops, note in rows:
        if p50 is None:
            print(f"{case:<18} {label:<18} {'n/a':>10} {'':>10} {'':>8}  {note}")
        else:
            print(f"{case:<18} {label:<18} {p50:10.1f} {p99:10.1f} "
                  f"{tflops:8.1f}  {note}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
