#!/usr/bin/env python3
"""Fits the coefficients of opfuse's one-piece GELU (erf) (FastMath.cpp).

GELU(x) = x Phi(x), Phi the normal distribution function, and

    Phi(-u) = 2^-E(u),  E(u) = 1 + u P(min(u, T)),  u = |x|,
    Phi(x)  = 2^-E(u) for x < 0 and 1 - 2^-E(u) otherwise,

so one polynomial and one ex2.approx cover every argument: no cancellation
on the negative tail (Phi is never 1 + erf there), no second piece near
zero (Phi does not vanish there, erf does). P is a minimax fit of E's
absolute error on [0, T] (Lawson's algorithm, mpmath at 30 digits), which
is Phi's relative error divided by ln 2. One fit per result type:

    bf16  degree 6 on [0, 13.5]: bf16 keeps f32's range, so the fit runs
          to where GELU underflows f32;
    f16   degree 5 on [0, 6]:    GELU rounds to 0 in f16 from x = -6 on;
    f32   degree 10 on [0, 5.5]: beyond, |GELU| < 1.1e-7.

It then evaluates the formula as the GPU does (each FMA rounded once to
f32; 2^r exact, where ex2.approx adds up to 2 f32 ulps) and prints, for
bf16 and f16, how many of the 65536 inputs of the type give a result that
is not the correctly rounded GELU or a neighbour, and for f32 the largest
relative error over |x| in [2^-20, 5.5] and the largest absolute error
over [-20, 20]. test/GPU/gelu16.test and bench/f32_math_error.py measure
the same on the GPU.

    python3 bench/fit_gelu_erf.py      # about a minute; needs mpmath
"""
import math
import struct

import mpmath as mp

from fit_erf_f32 import f32, hexf, lawson, ulp

mp.mp.dps = 30

FITS = {"bf16": (6, 13.5), "f16": (5, 6.0), "f32": (10, 5.5)}


def exponent(u):
    return -mp.log(mp.erfc(u / mp.sqrt(2)) / 2, 2)


def slope(u):
    if u == 0:
        return mp.sqrt(2 / mp.pi) / mp.log(2)
    return (exponent(u) - 1) / u


def fit(degree, limit):
    coef, err = lawson(slope, lambda u: u if u > 0 else mp.mpf("1e-30"),
                       mp.mpf(0), mp.mpf(limit), degree, n=240, iters=80)
    return [f32(c) for c in coef], err


def gelu32(x, coef, limit):
    def fma(a, b, c):
        return f32(a * b + c)
    if math.isnan(x):
        return x
    u = abs(x)
    p = coef[-1]
    for c in reversed(coef[:-1]):
        p = fma(p, min(u, limit), c)
    e = fma(u, -p, -1.0)
    h = f32(2.0 ** e) if e > -1000 else 0.0
    phi = h if x < 0 else f32(1.0 - h)
    return f32(x * phi)


def gelu(x):
    return float(x * mp.erfc(-mp.mpf(x) / mp.sqrt(2)) / 2)


def bf16_round(v):
    bits = struct.unpack("I", struct.pack("f", f32(v)))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return bits & 0xFFFF


def to_float_bf16(b):
    return struct.unpack("f", struct.pack("I", b << 16))[0]


def f16_round(v):
    return struct.unpack("H", struct.pack("e", v))[0]


def ordered(b):
    return -(b & 0x7FFF) if b & 0x8000 else b & 0x7FFF


def count_16(kind, coef, limit):
    wrong = exact = total = 0
    for b in range(65536):
        if kind == "bf16":
            x = to_float_bf16(b)
        else:
            x = struct.unpack("e", struct.pack("H", b))[0]
        if math.isnan(x) or math.isinf(x):
            continue
        got, want = gelu32(x, coef, limit), gelu(x)
        if kind == "bf16":
            g, w = bf16_round(got), bf16_round(want)
        else:
            try:
                g = f16_round(got)
            except OverflowError:
                g = 0x7C00 if got > 0 else 0xFC00
            try:
                w = f16_round(want)
            except OverflowError:
                w = 0x7C00 if want > 0 else 0xFC00
        d = abs(ordered(g) - ordered(w))
        total += 1
        exact += d == 0
        wrong += d > 1
    return wrong, exact, total


def main():
    for kind, (degree, limit) in FITS.items():
        coef, err = fit(degree, limit)
        print(f"{kind}: degree {degree} on [0, {limit}], E's error "
              f"{mp.nstr(err, 3)} (Phi's relative error "
              f"{mp.nstr(err * mp.log(2), 3)})")
        print("  " + ", ".join(hexf(c) for c in coef))
        if kind == "f32":
            worst_rel = worst_abs = 0.0
            n = 200000
            for i in range(n):
                x = f32((-1) ** i * 2 ** (-20 + (math.log2(5.5) + 20) * i / n))
                want = gelu(x)
                got = gelu32(x, coef, limit)
                worst_rel = max(worst_rel, abs(got - want) / ulp(want))
                y = f32(-20 + 40 * i / n)
                worst_abs = max(worst_abs, abs(gelu32(y, coef, limit) - gelu(y)))
            print(f"  f32 evaluation: max {worst_rel:.2f} ulps on |x| in "
                  f"[2^-20, 5.5], max absolute error {worst_abs:.3g} on [-20, 20]")
        else:
            wrong, exact, total = count_16(kind, coef, limit)
            print(f"  every finite {kind}: {exact} of {total} correctly rounded, "
                  f"{wrong} more than one ulp off")


if __name__ == "__main__":
    main()
