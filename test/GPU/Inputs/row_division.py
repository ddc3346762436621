#!/usr/bin/env python3
"""Inputs and verdict for test/GPU/row-division.test.

    row_division.py write X.npy D.npy
    row_division.py verify X.npy D.npy Q.npy

Row r of D holds one divisor (every element the same), so the kernel's
per-row maximum is that divisor: 0, -0, infinities, NaN, subnormals, values
beyond 2^126, and random f32 of every exponent and sign. X holds random f32
of every exponent and sign with zeros, infinities, NaN and subnormals mixed
in. verify requires Q == X / D bit for bit (NumPy's f32 division is IEEE),
NaN for NaN, except where the dividend or the quotient is below 2^-100 in
magnitude, where one ulp is allowed (docs/numerics.md).
"""
import sys

import numpy as np

ROWS, COLS = 64, 1024


def divisors(rng):
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0**-149,
                        1.5 * 2.0**-128, -np.float32(2.0**-126) * 0.99999994,
                        2.0**-126, np.finfo(np.float32).max, 1.5 * 2.0**126,
                        -(2.0**127), -3.0, 1.0], dtype=np.float32)
    rest = random_f32(rng, ROWS - len(special))
    return np.concatenate([special, rest]).astype(np.float32)


def random_f32(rng, n):
    bits = rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32)
    values = bits.view(np.float32)
    # Random bit patterns: keep the finite ones, replace the rest.
    return np.where(np.isfinite(values), values, np.float32(1.5))


def write(x_path, d_path):
    rng = np.random.default_rng(7)
    x = random_f32(rng, ROWS * COLS).reshape(ROWS, COLS)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0**-149,
                         np.finfo(np.float32).max], dtype=np.float32)
    x[:, :len(specials)] = specials
    d = np.repeat(divisors(rng)[:, None], COLS, axis=1)
    np.save(x_path, x)
    np.save(d_path, d)


def verify(x_path, d_path, q_path):
    x, d, q = np.load(x_path), np.load(d_path), np.load(q_path)
    with np.errstate(all="ignore"):
        expected = (x / d[:, :1]).astype(np.float32)
    same = (q.view(np.uint32) == expected.view(np.uint32)) | (
        np.isnan(q) & np.isnan(expected))
    ulps = np.abs(q.view(np.int32).astype(np.int64) -
                  expected.view(np.int32).astype(np.int64))
    tiny = (np.abs(x) < 2.0**-100) | (np.abs(expected) < 2.0**-100)
    exact = int(same.sum())
    allowed = ~same & tiny & (ulps <= 1)
    wrong = ~same & ~allowed
    if wrong.any():
        r, c = np.argwhere(wrong)[0]
        print(f"row division: {int(wrong.sum())} quotients differ, first "
              f"{x[r, c]!r} / {d[r, 0]!r}: got {q[r, c]!r}, IEEE "
              f"{expected[r, c]!r}")
        return 1
    print(f"row division: {exact} of {q.size} quotients bit-exact, "
          f"{int(allowed.sum())} within one ulp below 2^-100")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(*sys.argv[2:4])
        sys.exit(0)
    sys.exit(verify(*sys.argv[2:5]))
