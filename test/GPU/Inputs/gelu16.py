#!/usr/bin/env python3
"""Inputs and verdict for test/GPU/gelu16.test.

    gelu16.py write DIR                 inputs: every bf16 and f16, 2^20 f32
    gelu16.py verify KIND X.npy Y.npy   KIND: bf16, f16 or f32-bf16

A GELU (erf) rounded to bf16 or f16 must be the correctly rounded value of
f64's x erfc(-x / sqrt 2) / 2 or one of its two neighbours, NaN where f64
is NaN (x = -inf); verify prints how many are exactly the correctly rounded
one. bf16 results come back as f32 (--save-outputs writes bf16 as f32,
exactly).
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from exp16 import judge_rounded, write  # noqa: E402


def f32_arguments():
    # Every 2^20th step from -20 (GELU far below bf16's smallest normal)
    # to 20, with the specials.
    x = np.linspace(-20.0, 20.0, 1024 * 1024, dtype=np.float64).astype(np.float32)
    x[:5] = [0.0, -0.0, np.inf, -np.inf, np.nan]
    return x.reshape(1024, 1024)


def gelu(x):
    erfc = np.frompyfunc(math.erfc, 1, 1)
    with np.errstate(invalid="ignore"):
        return x * erfc(-x / math.sqrt(2.0)).astype(np.float64) / 2


def verify(kind, x_path, y_path):
    exact = gelu(np.load(x_path).astype(np.float64))
    return judge_rounded(f"gelu {kind}", kind, exact, np.load(y_path))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], f32_arguments())
        sys.exit(0)
    sys.exit(verify(*sys.argv[2:5]))
