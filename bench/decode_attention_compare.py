#!/usr/bin/env python3
"""Side-by-side decode attention: opfuse's attention kernel on a handful of
queries against a long KV cache, beside PyTorch's SDPA backends (flash,
cuDNN, memory-efficient) and torch.compile (mode="reduce-overhead") of the
unfused graph, and beside the same-run copy roofline, in one run on one GPU.

A decode step is memory-bound: the whole K and V cache is read once. The
roofline column is the time a device copy at the same run's bandwidth
takes to move q, k, v and the output once; "of roofline" is that time over
the measured P50. Every system gets the same inputs; CUDA-event timing
after warm-up, P50 and P99 over the same number of runs; opfuse is timed by
`opt-fuse --bench --json --check` (its own warm-up and iterations, its
output checked against the f64 reference in the same call).

Two sets of cases, written down on 2026-12-03 before the split-key kernel
was tuned: "tuning" is llama_decode's attention (examples/blocks), the one
the kernel was developed on; "held-out" are shapes it was never run on
while tuning (grouped-query heads, ragged caches, head dim 64, f16, a few
tokens at once, a short cache). Report both.

    python3 bench/decode_attention_compare.py [--iters 100]
        [--set tuning|held-out|both] [--tilings auto wgmma:64x64/k1 ...]
        [--json rows.json]
"""
import json
import os
import sys
import tempfile

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import (attention_parser, copy_gbs, run_opfuse,  # noqa: E402
                     time_cuda)


# (name, batch, heads, kv heads, queries, cache length, head dim, dtype)
TUNING = [("llama_decode", 4, 16, 16, 1, 1025, 128, "bf16")]
HELD_OUT = [
    ("gqa_4k", 1, 32, 8, 1, 4097, 128, "bf16"),
    ("ragged_d64_f16", 8, 12, 12, 1, 777, 64, "f16"),
    ("long_16k", 2, 32, 32, 1, 16384, 128, "bf16"),
    ("spec4_gqa", 4, 16, 4, 4, 2048, 128, "bf16"),
    ("short_300", 16, 8, 8, 1, 300, 64, "bf16"),
    ("chunk16_gqa", 1, 64, 8, 16, 8192, 128, "bf16"),
    ("prefill_1k", 1, 8, 8, 1024, 1024, 128, "bf16"),
]
DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def model_text(name, b, h, hkv, sq, sk, d, dtype):
    q = f"tensor<{b}x{h}x{sq}x{d}x{dtype}>"
    kv = f"tensor<{b}x{hkv}x{sk}x{d}x{dtype}>"
    return (f"func.func @{name}(%q: {q}, %k: {kv}, %v: {kv}) -> {q} {{\n"
            f"  %o = fuse.attention %q, %k, %v scale = {d ** -0.5:.9e}"
            f" : ({q}, {kv}, {kv}) -> {q}\n"
            f"  return %o : {q}\n}}\n")


def unfused(q, k, v):
    groups = q.shape[1] // k.shape[1]
    if groups > 1:
        k = k.repeat_interleave(groups, dim=1)
        v = v.repeat_interleave(groups, dim=1)
    s = (q @ k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    return torch.softmax(s.float(), dim=-1).to(q.dtype) @ v


def sdpa(backend):
    from torch.nn.attention import sdpa_kernel

    def run(q, k, v):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(
                q, k, v, enable_gqa=q.shape[1] != k.shape[1])
    return run


def systems():
    from torch.nn.attention import SDPBackend
    return [("sdpa-flash", sdpa(SDPBackend.FLASH_ATTENTION)),
            ("sdpa-cudnn", sdpa(SDPBackend.CUDNN_ATTENTION)),
            ("sdpa-efficient", sdpa(SDPBackend.EFFICIENT_ATTENTION)),
            ("reduce-overhead",
             torch.compile(unfused, mode="reduce-overhead", dynamic=False))]


def main():
    parser = attention_parser(__doc__.splitlines()[0], warmup=10, iters=100)
    parser.add_argument("--set", choices=["tuning", "held-out", "both"],
                        default="both")
    args = parser.parse_args()

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    cases = [("tuning", c) for c in TUNING if args.set != "held-out"]
    cases += [("held-out", c) for c in HELD_OUT if args.set != "tuning"]
    work = tempfile.mkdtemp(prefix="decode_attention_")
    rows = []
    for which, (name, b, h, hkv, sq, sk, d, dtype) in cases:
        gen = torch.Generator(device="cuda").manual_seed(0)
        make = (lambda *shape: torch.randn(*shape, device="cuda",
                                           generator=gen).to(DTYPES[dtype]))
        q, k, v = make(b, h, sq, d), make(b, hkv, sk, d), make(b, hkv, sk, d)
        nbytes = 2 * (q.numel() * 2 + k.numel() + v.numel())
        roofline = nbytes / (copy_gbs(nbytes, args.warmup, args.iters) * 1e3)
        case = f"{which} {name}"
        rows.append((case, "copy roofline", roofline, None, ""))
        torch._dynamo.reset()
        for label, fn in systems():
            try:
                fn(q, k, v)
                p50, p99 = time_cuda(lambda: fn(q, k, v), args.warmup,
                                     args.iters)
            except Exception as error:  # a backend without the case
                rows.append((case, label, None, None,
                             str(error).splitlines()[0][:80]))
                continue
            rows.append((case, label, p50, p99,
                         f"{roofline / p50:.0%} of roofline"))
        path = os.path.join(work, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(model_text(name, b, h, hkv, sq, sk, d, dtype))
        for tiling in args.tilings:
            label = "opfuse" + ("" if tiling == "auto" else f" {tiling}")
            try:
                result = run_opfuse(args.opt_fuse, path, args.warmup,
                                    args.iters,
                                    ["--check", "--attention-tiling", tiling])
            except RuntimeError as error:
                rows.append((case, label, None, None,
                             str(error).splitlines()[-1][:80]))
                continue
            p50 = result["latency"]["p50_us"]
            p99 = result["latency"]["p99_us"]
            checked = all(c.get("pass", True)
                          for c in result.get("check", []))
            rows.append((case, label, p50, p99,
                         f"{roofline / p50:.0%} of roofline"
                         f"{'' if checked else ', CHECK FAILED'}"))
        del q, k, v
        torch.cuda.empty_cache()
    print(f"{'case':<28} {'system':<24} {'p50 us':>9} {'p99 us':>9}  note")
    for case, label, p50, p99, note in rows:
        p50s = "n/a" if p50 is None else f"{p50:9.1f}"
        p99s = "" if p99 is None else f"{p99:9.1f}"
        print(f"{case:<28} {label:<24} {p50s:>9} {p99s:>9}  {note}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
