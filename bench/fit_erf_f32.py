#!/usr/bin/env python3
"""Fits the coefficients of opfuse's branch-free f32 erf (FastMath.cpp).

erf(x) = x + x q(x^2)              for |x| < 1,
erf(x) = sign(x) (1 - 2^(-t (1 + p(t))))   for t = min(|x|, 4) >= 1,

q of degree 5 and p of degree 5, each a weighted minimax fit of the
relative error of erf (Lawson's algorithm on 300 Chebyshev points, in
mpmath at 25 digits), printed as f32 hex literals. It then evaluates the
f32 formula with the rounded coefficients (each FMA rounded once to f32;
2^r exact, where the GPU's ex2.approx adds up to 2 ulps) on 300,000
arguments against math.erf and prints the largest error in f32 ulps. The
GPU's own error is what bench/f32_math_error.py measures.

    python3 bench/fit_erf_f32.py      # about half a minute; needs mpmath
"""
import math
import random
import struct

import mpmath as mp

mp.mp.dps = 25


def f32(v):
    return struct.unpack("f", struct.pack("f", float(v)))[0]


def lawson(f, weight, lo, hi, degree, n=300, iters=60):
    """Weighted minimax polynomial (coefficients, lowest first) and its error."""
    xs = [lo + (hi - lo) * (1 - mp.cos(mp.pi * (i + 0.5) / n)) / 2 for i in range(n)]
    fs = [f(x) for x in xs]
    ws = [weight(x) for x in xs]
    lam = [mp.mpf(1) / n] * n
    best = None
    m = degree + 1
    for _ in range(iters):
        a = mp.matrix(m, m)
        b = mp.matrix(m, 1)
        for x, fx, wx, l in zip(xs, fs, ws, lam):
            powers = [x**k for k in range(m)]
            c = l * wx * wx
            for i in range(m):
                b[i] += c * powers[i] * fx
                for j in range(m):
                    a[i, j] += c * powers[i] * powers[j]
        coef = mp.lu_solve(a, b)
        errs = [abs(wx * (sum(coef[k] * x**k for k in range(m)) - fx))
                for x, fx, wx in zip(xs, fs, ws)]
        worst = max(errs)
        if best is None or worst < best[1]:
            best = ([coef[k] for k in range(m)], worst)
        total = sum(l * e for l, e in zip(lam, errs))
        lam = [l * e / total for l, e in zip(lam, errs)]
    return best


def fit():
    def q(s):
        if s == 0:
            return 2 / mp.sqrt(mp.pi) - 1
        return mp.erf(mp.sqrt(s)) / mp.sqrt(s) - 1

    def q_weight(s):  # x (dq) relative to erf(x)
        return mp.sqrt(s) / mp.erf(mp.sqrt(s)) if s > 0 else mp.sqrt(mp.pi) / 2

    def p(t):
        return -mp.log(mp.erfc(t), 2) / t - 1

    def p_weight(t):  # d(2^r) = 2^r ln 2 t (dp), relative to erf(t)
        return mp.erfc(t) * mp.log(2) * t / mp.erf(t)

    small, e_small = lawson(q, q_weight, mp.mpf(0), mp.mpf(1), 5)
    large, e_large = lawson(p, p_weight, mp.mpf(1), mp.mpf(4), 5)
    return [f32(c) for c in small], e_small, [f32(c) for c in large], e_large


def erf32(x, small, large):
    def fma(a, b, c):
        return f32(a * b + c)

    def horner(v, c):
        r = c[-1]
        for k in reversed(c[:-1]):
            r = fma(r, v, k)
        return r

    if abs(x) < 1:
        return fma(x, horner(f32(x * x), small), x)
    t = min(abs(x), 4.0)
    r = fma(horner(t, large), -t, -t)
    return math.copysign(f32(1.0 - f32(2.0**r)), x)


def hexf(v):
    """A C float literal: 0x1.06eba2p-3f."""
    mantissa, exponent = float(v).hex().split("p")
    return mantissa.rstrip("0").rstrip(".") + "p" + exponent + "f"


def ulp(v):
    return 2.0 ** (math.frexp(abs(v))[1] - 24) if v else 2.0**-149


def main():
    small, e_small, large, e_large = fit()
    print(f"q (|x| < 1), fit error {mp.nstr(e_small, 3)}:")
    print("  " + ", ".join(hexf(c) for c in small))
    print(f"p (|x| >= 1), fit error {mp.nstr(e_large, 3)}:")
    print("  " + ", ".join(hexf(c) for c in large))
    random.seed(1)
    worst, at = 0.0, 0.0
    for i in range(300000):
        x = f32(random.uniform(0, 4.2) if i % 3 else 2 ** random.uniform(-20, 2))
        err = abs(erf32(x, small, large) - math.erf(x)) / ulp(math.erf(x))
        if err > worst:
            worst, at = err, x
    print(f"f32 evaluation: max error {worst:.2f} ulps (at x = {at!r})")


if __name__ == "__main__":
    main()
