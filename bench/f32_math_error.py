#!/usr/bin/env python3
"""Error of opfuse's f32 transcendental functions, as its kernels compute them.

Runs on the GPU machine: one f32 model (bench/graphs/f32_math.mlir) takes a
vector of 2^24 f32 values, evenly spaced in bit pattern over |x| in
[2^-20, 100] (both signs: every 16th f32 of that range, near enough) plus
0, +-inf and NaN, and returns sigmoid, SiLU, erf, GELU (erf), exp and
tanh of it. opt-fuse runs it on the GPU (--save-outputs) and this script
compares every output with f64 (PyTorch's double functions): the largest
relative error over elements whose f64 value is a normal f32 and whose
magnitude is at least 2^-20 (below, the absolute error, which --check
measures against max(|ref|, 1)), the largest absolute error, and the
special values.

    python3 bench/f32_math_error.py [--opt-fuse build/bin/opt-fuse]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
N = 1 << 24
SPECIALS = [0.0, -0.0, float("inf"), float("-inf"), float("nan")]


def inputs():
    low = np.array(2.0 ** -20, np.float32).view(np.int32)
    high = np.array(100.0, np.float32).view(np.int32)
    half = (N - len(SPECIALS)) // 2
    bits = np.linspace(low, high, half).astype(np.int32)
    magnitudes = bits.view(np.float32)
    rest = N - len(SPECIALS) - 2 * half
    x = np.concatenate([magnitudes, -magnitudes, np.array(SPECIALS, np.float32),
                        np.ones(rest, np.float32)])
    return x.astype(np.float32)


def references(x):
    t = torch.from_numpy(x).double()
    erf = torch.special.erf(t)
    sigmoid = torch.sigmoid(t)
    return {
        "sigmoid": sigmoid,
        "silu": t * sigmoid,
        "erf": erf,
        "gelu_erf": 0.5 * t * (1 + torch.special.erf(t / 2 ** 0.5)),
        "exp": torch.exp(t),
        "tanh": torch.tanh(t),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse",
                        default=os.path.join(ROOT, "build/bin/opt-fuse"))
    args = parser.parse_args()
    x = inputs()
    work = tempfile.mkdtemp(prefix="opfuse-f32-math-")
    np.save(os.path.join(work, "x.npy"), x)
    outputs = os.path.join(work, "out")
    subprocess.run([args.opt_fuse,
                    os.path.join(ROOT, "bench/graphs/f32_math.mlir"),
                    "--bench", "--iters", "1", "--warmup", "0",
                    f"--inputs=arg0={os.path.join(work, 'x.npy')}",
                    f"--save-outputs={outputs}"], check=True,
                   stdout=subprocess.DEVNULL)
    refs = references(x)
    finite = np.isfinite(x)
    print(f"device: {torch.cuda.get_device_name()}")
    print(f"{'function':<9} {'max rel error':>14} {'at x':>14} "
          f"{'max abs error':>14} {'at x':>14} {'inf/nan':>8}  "
          f"specials (0, -0, inf, -inf, nan)")
    for i, (name, ref) in enumerate(refs.items()):
        got = torch.from_numpy(np.load(os.path.join(outputs,
                                                     f"result{i}.npy"))).double()
        tiny = np.finfo(np.float32).tiny
        # Judged relatively: results of at least 2^-20 and below 2^127 (the
        # top binade's last values overflow in libdevice's expf; they are
        # counted apart, with any other non-finite result of a finite one).
        judged = torch.from_numpy(finite) & (ref.abs() >= max(2.0 ** -20,
                                                              tiny)) & \
            (ref.abs() < 2.0 ** 127)
        representable = torch.from_numpy(finite) & \
            (ref.abs() <= float(np.finfo(np.float32).max))
        lost = int((representable & ~got.isfinite()).sum())
        diff = (got - ref).abs()
        rel = torch.where(judged, diff / ref.abs(), torch.zeros_like(diff))
        # Absolutely: every finite result of a representable one (the
        # others are `lost`).
        absolute = torch.where(representable & got.isfinite(), diff,
                               torch.zeros_like(diff))
        r, a = int(rel.argmax()), int(absolute.argmax())
        start = 2 * ((N - len(SPECIALS)) // 2)
        specials = got[start:start + len(SPECIALS)].tolist()
        want = ref[start:start + len(SPECIALS)].tolist()
        same = all((np.isnan(g) and np.isnan(w)) or g == w
                   for g, w in zip(specials, want))
        print(f"{name:<9} {rel[r].item():>14.4e} {x[r]:>14.7g} "
              f"{absolute[a].item():>14.4e} {x[a]:>14.7g} {lost:>8}  "
              f"{specials} {'(as f64)' if same else f'(f64: {want})'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
