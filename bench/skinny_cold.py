#!/usr/bin/env python3
# ===- skinny_cold.py - Skinny GEMMs with their weights cold --------------=== #
#
# A decode GEMM's weight fits in the H200's 60 MB L2, so timing one GEMM
# again and again reads its weight from L2. `graphs DIR` writes, per shape,
# a graph of enough copies of the GEMM on distinct weights (over 150 MB)
# that each reads its weight from HBM: time it with `opt-fuse DIR/NAME.mlir
# --bench` and divide the P50 by the copies (the first comment line says
# how many). `cublas` times torch.mm (cuBLAS) on the same shapes, replayed
# from a CUDA graph of 50 GEMMs cycling over weights past the L2. `sweep
# DIR` times the tile model's best tilings of each (--autotune on the cold
# graph) and says which rank won.
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


def sweep(opt_fuse, directory, candidates, names):
    """For each shape, the tile model's best `candidates` tilings timed by
    --autotune on its cold graph (the first copy's kernel, its weight past
    the L2 after the other copies), in the model's order: which rank won
    and by how much."""
    import json
    import subprocess
    import tempfile
    write_graphs(directory)
    for name in names or SHAPES:
        path = os.path.join(directory, name + ".mlir")
        with tempfile.TemporaryDirectory() as tmp:
            cache = os.path.join(tmp, "cache.json")
            done = subprocess.run(
                [opt_fuse, path, "--autotune", "--emit=summary", "-o",
                 os.devnull, f"--autotune-candidates={candidates}",
                 f"--autotune-cache={cache}"],
                capture_output=True, text=True)
            if done.returncode != 0 or not os.path.exists(cache):
                print(f"{name}: opt-fuse exit {done.returncode}: "
                      f"{done.stderr.strip()[:300]}")
                continue
            with open(cache) as f:
                entries = json.load(f)["entries"]
        for entry in entries:
            measured = entry.get("measured_us", [])
            if not measured:
                continue
            best = min(range(len(measured)), key=lambda i: measured[i][1])
            m, k, n, _ = SHAPES[name]
            print(f"{name}: model's pick {measured[0][0]} "
                  f"{measured[0][1]:.2f} us; fastest #{best + 1} "
                  f"{measured[best][0]} {measured[best][1]:.2f} us "
                  f"({k * n * 2 / (measured[best][1] * 1e-6) / 1e9:.0f} GB/s "
                  f"of weight)")
            print("    " + ", ".join(f"{t} {us:.2f}" for t, us in measured))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    graphs = sub.add_parser("graphs", help="write the cold-weight graphs")
    graphs.add_argument("directory")
    sub.add_parser("cublas", help="time cuBLAS on the same shapes")
    sweep_parser = sub.add_parser(
        "sweep", help="time the tile model's best tilings of each shape "
        "(--autotune on the cold graph), on a machine with a GPU")
    sweep_parser.add_argument("directory")
    sweep_parser.add_argument("--opt-fuse", default="build/bin/opt-fuse")
    sweep_parser.add_argument("--candidates", type=int, default=8)
    sweep_parser.add_argument("names", nargs="*",
                              help="shapes (default: all)")
    args = parser.parse_args()
    if args.command == "graphs":
        write_graphs(args.directory)
    elif args.command == "sweep":
        sweep(args.opt_fuse, args.directory, args.candidates, args.names)
    else:
        time_cublas()


if __name__ == "__main__":
    main()
