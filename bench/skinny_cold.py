#!/usr/bin/env python3
# ===- skinny_cold.py - Skinny GEMMs with their weights cold --------------=== #
#
# A decode GEMM's weight fits in the H200's 60 MB L2, so timing one GEMM
# again and again reads its weight from L2. `graphs DIR` writes, per shape,
# a graph of enough copies of the GEMM on distinct weights (over 150 MB)
# that each reads its weight from HBM: time it with `opt-fuse DIR/NAME.mlir
# --bench` and divide the P50 by the copies (the first comment line says
# how many). `cublas` times torch.mm (cuBLAS) on the same shapes, replayed
# from a CUDA graph of 50 GEMMs cycling over weights past the L2.
#
# ===----------------------------------------------------------------------=== #
import argparse
import math
import os

SHAPES = {  # name: (M, K, N, dtype), tuning shapes first, then held out
    "d8_4096x4096": (8, 4096, 4096, "bf16"),
    "d16_14336x4096": (16, 14336, 4096, "bf16"),
    "d1_4096x14336": (1, 4096, 14336, "bf16"),
    "l4_qkv_2048x6144": (4, 2048, 6144, "bf16"),
    "l4_gate_2048x5632": (4, 2048, 5632, "bf16"),
    "l4_down_5632x2048": (4, 5632, 2048, "bf16"),
    "l4_o_2048x2048": (4, 2048, 2048, "bf16"),
    "h4_8192x8192": (4, 8192, 8192, "bf16"),
    "h3_5000x3000": (3, 5000, 3000, "bf16"),
    "h32_f16_4096x11008": (32, 4096, 11008, "f16"),
    "h64_8192x1024": (64, 8192, 1024, "bf16"),
    "h12_4096x6144": (12, 4096, 6144, "bf16"),
    "h2_3072x768": (2, 3072, 768, "bf16"),
}

# A second held-out set, written down on 2026-12-05 before the tile model's
# skinny picks were looked at again: rows from 1 to 64 (33 and 56 off any
# tile), weights from 12 MB to 470 MB, K and N off powers of two, f16 too.
HELDOUT2 = {
    "g48_4096x1536": (48, 4096, 1536, "bf16"),
    "g64_f16_2048x8192": (64, 2048, 8192, "f16"),
    "g24_6144x2048": (24, 6144, 2048, "bf16"),
    "g8_3584x18944": (8, 3584, 18944, "bf16"),
    "g1_8192x28672": (1, 8192, 28672, "bf16"),
    "g16_f16_5120x13824": (16, 5120, 13824, "f16"),
    "g40_1536x6144": (40, 1536, 6144, "bf16"),
    "g2_7168x7168": (2, 7168, 7168, "bf16"),
    "g64_14336x4096": (64, 14336, 4096, "bf16"),
    "g33_1024x3072": (33, 1024, 3072, "bf16"),
    "g56_3000x5000": (56, 3000, 5000, "bf16"),
}
SHAPES.update(HELDOUT2)


def write_graphs(directory):
    os.makedirs(directory, exist_ok=True)
    for name, (m, k, n, dt) in SHAPES.items():
        copies = min(16, max(2, math.ceil(150e6 / (k * n * 2))))
        a, w, y = (f"tensor<{m}x{k}x{dt}>", f"tensor<{k}x{n}x{dt}>",
                   f"tensor<{m}x{n}x{dt}>")
        args = ", ".join(f"%x{i}: {a}, %w{i}: {w}" for i in range(copies))
        body = "\n".join(f"  %y{i} = fuse.matmul %x{i}, %w{i} : ({a}, {w}) -> {y}"
                         for i in range(copies))
        results = ", ".join([y] * copies)
        names = ", ".join(f"%y{i}" for i in range(copies))
        with open(os.path.join(directory, name + ".mlir"), "w") as f:
            f.write(f"// {copies} copies on distinct weights\n"
                    f"func.func @{name}({args}) -> ({results}) {{\n{body}\n"
                    f"  return {names} : {results}\n}}\n")


def time_cublas():
    import torch
    for name, (m, k, n, dt) in SHAPES.items():
        dtype = torch.bfloat16 if dt == "bf16" else torch.float16
        copies = max(2, math.ceil(200e6 / (k * n * 2)))
        x = torch.randn(m, k, device="cuda", dtype=dtype)
        ws = [torch.randn(k, n, device="cuda", dtype=dtype)
              for _ in range(copies)]
        out = torch.empty(m, n, device="cuda", dtype=dtype)
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            for w in ws:
                torch.mm(x, w, out=out)
        torch.cuda.synchronize()
        graph, reps = torch.cuda.CUDAGraph(), 50
        with torch.cuda.graph(graph):
            for i in range(reps):
                torch.mm(x, ws[i % copies], out=out)
        samples = []
        for _ in range(30):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end) * 1000 / reps)
        samples.sort()
        p50 = samples[len(samples) // 2]
        print(f"cublas {name}: {p50:.2f} us a GEMM, "
              f"{k * n * 2 / (p50 * 1e-6) / 1e9:.0f} GB/s of weight")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    graphs = sub.add_parser("graphs", help="write the cold-weight graphs")
    graphs.add_argument("directory")
    sub.add_parser("cublas", help="time cuBLAS on the same shapes")
    args = parser.parse_args()
    if args.command == "graphs":
        write_graphs(args.directory)
    else:
        time_cublas()


if __name__ == "__main__":
    main()
