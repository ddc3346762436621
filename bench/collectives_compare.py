#!/usr/bin/env python3
"""Collectives on several GPUs: opfuse's NCCL steps beside torch.distributed.

Runs on a machine of 2 or more GPUs (nvidia-h200-x2), one script, the
peers in the same run, NVLink multicast off (NCCL_NVLS_ENABLE=0) for both:

* all_reduce of 256 MB (bf16): opt-fuse --bench --devices N on a model that
  is one fuse.all_reduce, against torch.distributed.all_reduce (NCCL) in N
  processes. Bus bandwidth as nccl-tests defines it: bytes x 2(N-1)/N over
  the time. Target: opfuse at >= 95% of torch's.
* The tensor-parallel MLP of examples/allreduce_mlp.mlir over N GPUs
  (Megatron: W1 split by columns, W2 by rows, an all_reduce of the partial
  products, then bias and residual): opfuse with the row-parallel GEMM
  windowed (--overlap-collectives=auto, the default) and not (off), against
  a PyTorch tensor-parallel MLP (eager, bf16, the same shards) in N
  processes, and both on one GPU (the whole MLP) for the speed-up. For
  opfuse the report's predicted hidden communication sits beside the
  measured one (runs with every step on the kernels' stream minus runs
  with the all_reduces beside the kernels).

Latency is P50 and P99 after warm-up (CUDA events; opfuse's own --bench
times its plan the same way; torch: rank 0's events after a barrier).

    python3 bench/collectives_compare.py [--opt-fuse build/bin/opt-fuse]
        [--devices 2] [--tokens 8192] [--hidden 4096] [--ffn 11008]
        [--iters 50] [--check]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from build_env import env_for
from compare import time_cuda

ALL_REDUCE_BYTES = 256 << 20


def all_reduce_model(devices, elements):
    cols = 16384
    rows = elements // cols
    t = f"tensor<{rows}x{cols}xbf16>"
    return (f"func.func @all_reduce_256mb(%x: {t}) -> {t} {{\n"
            f"  %0 = fuse.all_reduce sum, %x devices = {devices} : {t}\n"
            f"  return %0 : {t}\n}}\n")


def mlp_model(devices, tokens, hidden, ffn):
    """examples/allreduce_mlp.mlir's layer at `devices` shards (devices=1:
    the whole MLP, no all_reduce)."""
    shard = ffn // devices
    x = f"tensor<{tokens}x{hidden}xbf16>"
    w1 = f"tensor<{hidden}x{shard}xbf16>"
    b1 = f"tensor<{shard}xbf16>"
    w2 = f"tensor<{shard}x{hidden}xbf16>"
    b2 = f"tensor<{hidden}xbf16>"
    h = f"tensor<{tokens}x{shard}xbf16>"
    reduce = (f"  %4 = fuse.all_reduce sum, %3 devices = {devices} : {x}\n"
              if devices > 1 else "")
    reduced = "%4" if devices > 1 else "%3"
    shard_attr = lambda axis: f" {{fuse.shard = {axis} : i64}}" if devices > 1 else ""
    return (
        f"func.func @tp_mlp(%x: {x}, %w1: {w1}{shard_attr(1)}, %b1: {b1}{shard_attr(0)},\n"
        f"                  %w2: {w2}{shard_attr(0)}, %b2: {b2}) -> {x} {{\n"
        f"  %0 = fuse.matmul %x, %w1 : ({x}, {w1}) -> {h}\n"
        f"  %1 = fuse.add %0, %b1 : ({h}, {b1}) -> {h}\n"
        f"  %2 = fuse.gelu %1 approximate = tanh : {h}\n"
        f"  %3 = fuse.matmul %2, %w2 : ({h}, {w2}) -> {x}\n"
        f"{reduce}"
        f"  %5 = fuse.add {reduced}, %b2 : ({x}, {b2}) -> {x}\n"
        f"  %6 = fuse.add %5, %x : ({x}, {x}) -> {x}\n"
        f"  return %6 : {x}\n}}\n")


def run_opfuse(opt_fuse, text, devices, args, flags=()):
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    command = [opt_fuse, path, "--bench", "--emit=report-json",
               "--warmup", str(args.warmup), "--iters", str(args.iters), *flags]
    if devices > 1:
        command.append(f"--devices={devices}")
    if args.check:
        command.append("--check")
    done = subprocess.run(command, capture_output=True, text=True,
                          env=env_for(opt_fuse))
    os.unlink(path)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n"
                           f"{done.stderr}")
    return json.loads(done.stdout)


def torch_worker(rank, world, port, job, shapes, warmup, iters, out):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=world)
    torch.manual_seed(rank)
    if job == "all_reduce":
        x = torch.randn(shapes["elements"], dtype=torch.bfloat16, device="cuda")
        fn = lambda: dist.all_reduce(x)
    else:
        t, h, f = shapes["tokens"], shapes["hidden"], shapes["ffn"] // world
        x = torch.randn(t, h, dtype=torch.bfloat16, device="cuda")
        w1 = torch.randn(h, f, dtype=torch.bfloat16, device="cuda") / h**0.5
        b1 = torch.randn(f, dtype=torch.bfloat16, device="cuda")
        w2 = torch.randn(f, h, dtype=torch.bfloat16, device="cuda") / f**0.5
        b2 = torch.randn(h, dtype=torch.bfloat16, device="cuda")

        def fn():
            y = torch.nn.functional.gelu(x @ w1 + b1, approximate="tanh") @ w2
            dist.all_reduce(y)
            return y + b2 + x
    p50, p99 = time_cuda(fn, warmup, iters, before=dist.barrier)
    if rank == 0:
        with open(out, "w") as f:
            json.dump([p50, p99], f)
    dist.destroy_process_group()


def run_torch(job, world, shapes, args):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    port = 29500 + os.getpid() % 1000
    mp.spawn(torch_worker, args=(world, port, job, shapes, args.warmup,
                                 args.iters, out), nprocs=world, join=True)
    with open(out) as f:
        p50, p99 = json.load(f)
    os.unlink(out)
    return p50, p99


def torch_one_gpu(shapes, args):
    t, h, f = shapes["tokens"], shapes["hidden"], shapes["ffn"]
    x = torch.randn(t, h, dtype=torch.bfloat16, device="cuda")
    w1 = torch.randn(h, f, dtype=torch.bfloat16, device="cuda") / h**0.5
    b1 = torch.randn(f, dtype=torch.bfloat16, device="cuda")
    w2 = torch.randn(f, h, dtype=torch.bfloat16, device="cuda") / f**0.5
    b2 = torch.randn(h, dtype=torch.bfloat16, device="cuda")
    fn = lambda: torch.nn.functional.gelu(x @ w1 + b1, approximate="tanh") @ w2 + b2 + x
    return time_cuda(fn, args.warmup, args.iters)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse", default="build/bin/opt-fuse")
    parser.add_argument("--devices", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--hidden", type=int, default=4096)
    parser.add_argument("--ffn", type=int, default=11008)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--iters", type=int, default=50)
    parser.add_argument("--check", action="store_true",
                        help="also --check opfuse's outputs against the reference")
    args = parser.parse_args()
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    n = args.devices
    if torch.cuda.device_count() < n:
        sys.exit(f"collectives_compare: {n} GPUs asked, "
                 f"{torch.cuda.device_count()} present")
    print(f"# {torch.cuda.get_device_name(0)} x{n}, torch {torch.__version__}, "
          f"NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}")

    elements = ALL_REDUCE_BYTES // 2
    factor = 2 * (n - 1) / n
    rows = []
    report = run_opfuse(args.opt_fuse, all_reduce_model(n, elements), n, args)
    p50, p99 = report["measured"]["p50_us"], report["measured"]["p99_us"]
    rows.append(("all_reduce 256 MB", "opfuse", p50, p99,
                 f"bus {ALL_REDUCE_BYTES * factor / (p50 * 1e3):.1f} GB/s"))
    p50, p99 = run_torch("all_reduce", n, {"elements": elements}, args)
    rows.append(("all_reduce 256 MB", "torch.distributed", p50, p99,
                 f"bus {ALL_REDUCE_BYTES * factor / (p50 * 1e3):.1f} GB/s"))

    shapes = {"tokens": args.tokens, "hidden": args.hidden, "ffn": args.ffn}
    one = run_opfuse(args.opt_fuse, mlp_model(1, **shapes), 1, args)
    one_p50 = one["measured"]["p50_us"]
    rows.append(("MLP, 1 GPU", "opfuse", one_p50, one["measured"]["p99_us"], ""))
    t1 = torch_one_gpu(shapes, args)
    rows.append(("MLP, 1 GPU", "torch eager", t1[0], t1[1], ""))
    for mode in ("auto", "off"):
        r = run_opfuse(args.opt_fuse, mlp_model(n, **shapes), n, args,
                       [f"--overlap-collectives={mode}"])
        p50 = r["measured"]["p50_us"]
        comm = r.get("communication", {})
        note = f"x{one_p50 / p50:.2f} over 1 GPU"
        if comm.get("overlapped_steps"):
            measured = r.get("overlap_measured", {}).get("hidden_us")
            note += (f"; {comm['overlapped_steps']} all_reduce chunk(s), hidden "
                     f"predicted {comm['hidden_us']:.1f} us, measured "
                     f"{measured:.1f} us" if measured is not None else "")
        rows.append((f"TP MLP, {n} GPUs", f"opfuse overlap={mode}", p50,
                     r["measured"]["p99_us"], note))
    p50, p99 = run_torch("mlp", n, shapes, args)
    rows.append((f"TP MLP, {n} GPUs", "torch eager TP", p50, p99,
                 f"x{t1[0] / p50:.2f} over 1 GPU"))

    print(f"{'case':<20} {'system':<24} {'P50 us':>10} {'P99 us':>10}  note")
    for case, system, p50, p99, note in rows:
        print(f"{case:<20} {system:<24} {p50:>10.2f} {p99:>10.2f}  {note}")


if __name__ == "__main__":
    main()
