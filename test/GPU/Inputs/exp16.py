#!/usr/bin/env python3
"""Inputs and verdict for test/GPU/exp16.test.

    exp16.py write DIR             inputs: every bf16 and f16, 2^20 f32
    exp16.py verify-exp KIND X.npy Y.npy     KIND: bf16, f16 or f32-bf16
    exp16.py verify-div KIND X.npy D.npy Q.npy   KIND: bf16 or f16

A result rounded to bf16 or f16 must be the correctly rounded value (of
f64 exp, or of the f32 quotient's exact value) or one of its two
neighbours, NaN for NaN; verify prints how many are exactly the correctly
rounded one. bf16 results come back as f32 (--save-outputs writes bf16 as
f32, exactly).
"""
import os
import sys

import numpy as np


def bf16_values():
    bits = np.arange(65536, dtype=np.uint32) << 16
    return bits.view(np.float32).reshape(256, 256)


def f16_values():
    return np.arange(65536, dtype=np.uint16).view(np.float16).reshape(256, 256)


def f32_arguments():
    # Every f32 from -104 (exp a bf16 subnormal) to 89 (near overflow), in
    # 2^20 steps, with the specials.
    x = np.linspace(-104.0, 89.0, 1024 * 1024, dtype=np.float64)
    x = x.astype(np.float32)
    x[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72]
    return x.reshape(1024, 1024)


def to_bf16_bits(exact):
    """exact (f64) rounded to the nearest bf16, ties to even, as bits."""
    f32 = exact.astype(np.float32)
    bits = f32.view(np.uint32).astype(np.uint64)
    low = (bits >> 16) << 16
    candidates = [low, low + (1 << 16)]
    values = [c.astype(np.uint32).view(np.float32).astype(np.float64)
              for c in candidates]
    with np.errstate(invalid="ignore"):
        d0 = np.abs(values[0] - exact)
        d1 = np.abs(values[1] - exact)
    even = ((low >> 16) & 1) == 0
    pick_high = (d1 < d0) | ((d1 == d0) & ~even)
    result = np.where(pick_high, candidates[1], candidates[0]) >> 16
    # Infinities and NaN come through f32 unchanged.
    special = ~np.isfinite(f32) | (f32 == 0)
    result = np.where(special, bits >> 16, result)
    return result.astype(np.uint16)


def ordered(bits16):
    """Sign-magnitude 16-bit patterns as integers in value order."""
    b = bits16.astype(np.int64)
    magnitude = b & 0x7FFF
    return np.where(b & 0x8000, -magnitude, magnitude)


def judge(name, got_bits, want_bits, got_nan, want_nan):
    both_nan = got_nan & want_nan
    distance = np.abs(ordered(got_bits) - ordered(want_bits))
    wrong = ~both_nan & ((got_nan != want_nan) | (distance > 1))
    if wrong.any():
        i = int(np.argmax(wrong))
        print(f"{name}: {int(wrong.sum())} results beyond one ulp, first at "
              f"flat index {i}: got bits {int(got_bits.flat[i]):#06x}, "
              f"correctly rounded {int(want_bits.flat[i]):#06x}")
        return 1
    exact = int(((distance == 0) | both_nan).sum())
    print(f"{name}: {exact} of {got_bits.size} correctly rounded, "
          f"{got_bits.size - exact} one ulp off")
    return 0


def judge_rounded(name, kind, exact, y):
    """judge() of results y (f16, or bf16 saved as f32) against f64 `exact`
    rounded to the type: KIND f16, bf16 or f32-bf16."""
    if kind == "f16":
        with np.errstate(over="ignore"):
            want = exact.astype(np.float16)
        return judge(name, y.view(np.uint16), want.view(np.uint16),
                     np.isnan(y), np.isnan(want))
    got = (y.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return judge(name, got, to_bf16_bits(exact), np.isnan(y), np.isnan(exact))


def verify_exp(kind, x_path, y_path):
    x = np.load(x_path).astype(np.float64)
    with np.errstate(over="ignore"):
        exact = np.exp(x)
    return judge_rounded(f"exp {kind}", kind, exact, np.load(y_path))


def verify_div(kind, x_path, d_path, q_path):
    x, d, q = np.load(x_path), np.load(d_path), np.load(q_path)
    with np.errstate(all="ignore"):
        exact = x.astype(np.float64) / d[:, :1].astype(np.float64)
    return judge_rounded(f"row division {kind}", kind, exact, q)


def write(directory, f32=None):
    """Every bf16 and f16 value, and `f32` (the exp's arguments by default)."""
    np.save(os.path.join(directory, "bf16.npy"), bf16_values())
    np.save(os.path.join(directory, "f16.npy"), f16_values())
    np.save(os.path.join(directory, "f32.npy"),
            f32_arguments() if f32 is None else f32)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "write":
        write(sys.argv[2])
        sys.exit(0)
    if command == "verify-exp":
        sys.exit(verify_exp(*sys.argv[2:5]))
    sys.exit(verify_div(*sys.argv[2:6]))
