#!/usr/bin/env python3
"""Peak device memory beyond the inputs: opfuse's plan against PyTorch.

For each graph, in one script on one GPU:
  - PyTorch eager and torch.compile: with the inputs (and weights) already
    on the device, torch.cuda.max_memory_allocated() during one call minus
    the memory allocated before it: every intermediate and the output.
  - opfuse: the arena plus the output buffers of its launch plan (inputs
    and weights are the caller's, as for PyTorch), and the arena alone with
    --plan-outputs (outputs planned into it, as PyTorch's peak counts them).
    Where the GPU emitters support the graph, `opt-fuse --bench --json` also
    reports the bytes the runtime actually allocated, which must be the
    same plus the inputs.

    python3 bench/memory_compare.py [--opt-fuse build/bin/opt-fuse]
"""
import argparse
import json
import os
import subprocess

import torch
from build_env import env_for
from torch_graphs import GRAPHS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def torch_peak_extra(fn, inputs):
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    out = fn(*inputs)
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated() - before
    del out
    return peak


def opfuse_plan(opt_fuse, model, *extra):
    done = subprocess.run([opt_fuse, os.path.join(ROOT, model),
                           "--emit=report-json", *extra], capture_output=True,
                          text=True, check=True, env=env_for(opt_fuse))
    memory = json.loads(done.stdout)["memory"]
    return memory


def opfuse_allocated(opt_fuse, model):
    done = subprocess.run([opt_fuse, os.path.join(ROOT, model), "--bench",
                           "--json", "--iters", "5"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        return None  # no GPU emitter for an op of this graph yet
    return json.loads(done.stdout)["bytes_allocated"]


def mib(n):
    return f"{n / 2**20:9.1f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opt-fuse", default=os.path.join(ROOT, "build/bin/opt-fuse"))
    args = parser.parse_args()
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'graph':20} {'inputs MiB':>10} {'eager MiB':>10} {'compile MiB':>11} "
          f"{'opfuse MiB':>10} {'(arena':>9} {'+ outputs)':>10} "
          f"{'--plan-outputs':>14} {'allocated - inputs':>18}")
    for name, (model, fn, shapes, dtype) in GRAPHS.items():
        torch.manual_seed(0)
        inputs = [torch.rand(s, device="cuda", dtype=torch.float32).to(dtype)
                  for s in shapes]
        input_bytes = sum(t.numel() * t.element_size() for t in inputs)
        eager = torch_peak_extra(fn, inputs)
        compiled = torch.compile(fn)
        compiled(*inputs)  # compile outside the measurement
        compile_peak = torch_peak_extra(compiled, inputs)
        memory = opfuse_plan(args.opt_fuse, model)
        ours = memory["arena_bytes"] + memory["output_bytes"]
        planned = opfuse_plan(args.opt_fuse, model, "--plan-outputs")["arena_bytes"]
        allocated = opfuse_allocated(args.opt_fuse, model)
        measured = (mib(allocated - memory["input_bytes"] - memory["constant_bytes"])
                    if allocated is not None else "  (no emitter yet)")
        print(f"{name:20} {mib(input_bytes):>10} {mib(eager):>10} {mib(compile_peak):>11} "
              f"{mib(ours):>10} {mib(memory['arena_bytes']):>9} {mib(memory['output_bytes']):>10} "
              f"{mib(planned):>14} {measured:>18}")
        del inputs, compiled
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
