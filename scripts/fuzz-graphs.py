#!/usr/bin/env python3
"""Differential fuzzing of opt-fuse on random valid fuse graphs.

Writes random, valid functions of the fuse dialect (elementwise ops with
NumPy broadcasting, reductions, softmax and the norms, matmuls, transposes,
slices, reshapes, concats and casts; integer arithmetic, comparisons and
selects; f32, f16, bf16, i32 and i1; small ragged shapes) and runs each
through

  opt-fuse G --check-fusion        the reference interpreter before and
                                   after fusion must agree bit for bit
  opt-fuse G --emit=ptx -o ...     compiling to PTX must succeed

or, with --modes=spmd, graphs with collectives (all_reduce, all_gather,
reduce_scatter over 2 devices) and arguments sharded by fuse.shard, through

  opt-fuse G --check-fusion --devices=2    every device's outputs, before
                                           and after fusion, bit for bit
  opt-fuse G --check-on-host --devices=2   the kernels and collective steps
                                           on 2 host devices, against the
                                           reference of both
  opt-fuse G --emit=ptx -o ...

or, with --modes=gpu on a machine with a GPU,

  opt-fuse G --check               the GPU's outputs within tolerance of
  opt-fuse G --check --numerics=strict    the reference of each mode

or, with --modes=window, row-parallel layers (a matmul, its all_reduce over
2 devices and an elementwise epilogue) split into the row chunks the graph
names (--overlap-collectives=C, fuse-window-collectives), through
--check-fusion --devices=2, --check-on-host --devices=2 --chip=sm_80 (the
chunk GEMMs as mma.sync kernels, which the host interpreter runs) and
--emit=ptx;

or, with --modes=layout, chains computed in a transposed layout (an input
transposed by a random permutation, elementwise ops, reductions, slices
and concats on it, then the inverse transpose, another or none), for
fuse-sink-transposes, through --check-fusion, --check-on-host
--chip=sm_80 and --emit=ptx;

or, with --modes=conv, grouped convolutions (depthwise, or several
channels a group: fuse-decompose's windows) with random strides,
asymmetric padding and dilation, an input transposed from NCHW, made by a
pointwise conv2d or given, and a bias with ReLU6 or a residual add after,
through --check-fusion (whose decomposition check compares the windows
with the conv2d as written), --check-on-host --chip=sm_80 and --emit=ptx;

or, with --modes=host anywhere, the same two runs through --check-on-host
(the kernels interpreted on the host; a kernel the interpreter does not
run, an sm_90 GEMM's, exits 4 and is counted as unsupported), and a third
with --chip=sm_80, whose GEMM kernels are mma.sync ones the host runs.

A run passes when every graph exits 0, or 4 (valid, but an op has no
emitter: counted and reported by message). Anything else (another exit
code, a signal, a fusion check that is not identical) is a failure: the
graph and the tool's output are kept under --keep, with a reduced copy
(seedN.min.mlir: ops replaced by arguments and removed while the failure
stays the same), and the script exits 1.

    python3 scripts/fuzz-graphs.py --opt-fuse build/bin/opt-fuse \\
        --seeds 0-499 [--keep fuzz-failures] [--jobs 2]
    python3 scripts/fuzz-graphs.py --reduce G.mlir --mode=--check-fusion
"""
import argparse
import collections
import itertools
import math
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

DIMS = (1, 2, 3, 5, 8, 17, 32, 64)
FLOATS = ("f32", "f16", "bf16")
UNARY = ("exp", "neg", "relu", "tanh", "sigmoid", "silu", "abs", "gelu",
         "log", "sqrt", "rsqrt", "reciprocal", "erf", "sin", "cos")
BINARY = ("add", "sub", "mul", "max", "min", "div")
# pow's exponent is a constant, as in models (x^2, x^0.5, x^-1): with a
# computed exponent a negative base gives NaN or a number depending on
# whether a rounded value lands on an integer (docs/numerics.md).
EXPONENTS = ("2.0", "3.0", "0.5", "-1.0", "1.5")
INT_BINARY = ("add", "sub", "mul", "max", "min", "div")
INT_UNARY = ("neg", "abs", "relu")
COMPARE = ("eq", "ne", "lt", "le", "gt", "ge")


def type_of(shape, dtype):
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


class Graph:
    """One function, built op by op; every value is (name, shape, dtype)."""

    def __init__(self, rng):
        self.rng = rng
        self.args = []
        self.values = []
        self.lines = []

    def arg(self, shape, dtype):
        value = (f"%a{len(self.args)}", tuple(shape), dtype)
        self.args.append(value)
        self.values.append(value)
        return value

    def emit(self, text, shape, dtype):
        value = (f"%v{len(self.lines)}", tuple(shape), dtype)
        self.lines.append(f"  {value[0]} = {text}")
        self.values.append(value)
        return value

    def pick(self, predicate=lambda v: True):
        choices = [v for v in self.values if predicate(v)]
        return self.rng.choice(choices) if choices else None


def unary(g):
    x = g.pick(lambda v: v[2] in FLOATS)
    if x is None:
        return integer(g)
    op = g.rng.choice(UNARY)
    t = type_of(x[1], x[2])
    if op == "gelu":
        mode = g.rng.choice(("tanh", "none"))
        return g.emit(f"fuse.gelu {x[0]} approximate = {mode} : {t}",
                      x[1], x[2])
    return g.emit(f"fuse.{op} {x[0]} : {t}", x[1], x[2])


def binary(g):
    x = g.pick(lambda v: v[2] != "i1")
    # The other operand: a value of the same type, or a new input whose
    # shape broadcasts against it (a suffix, with some dimensions 1).
    y = g.pick(lambda v: v[1] == x[1] and v[2] == x[2] and v != x)
    if y is None or g.rng.random() < 0.4:
        keep = g.rng.randint(0, len(x[1]))
        shape = [d if g.rng.random() < 0.7 else 1
                 for d in x[1][len(x[1]) - keep:]]
        y = g.arg(shape, x[2])
    if g.rng.random() < 0.5:
        x, y = y, x
    out = broadcast(x[1], y[1])
    op = g.rng.choice(BINARY if x[2] in FLOATS else INT_BINARY)
    return g.emit(f"fuse.{op} {x[0]}, {y[0]} : ({type_of(x[1], x[2])}, "
                  f"{type_of(y[1], y[2])}) -> {type_of(out, x[2])}",
                  out, x[2])


def power(g):
    x = g.pick(lambda v: v[2] in FLOATS)
    if x is None:
        return integer(g)
    t = type_of(x[1], x[2])
    e = g.emit(f"fuse.constant dense<{g.rng.choice(EXPONENTS)}> : "
               f"{type_of((), x[2])}", (), x[2])
    return g.emit(f"fuse.pow {x[0]}, {e[0]} : ({t}, {type_of((), x[2])}) -> "
                  f"{t}", x[1], x[2])


def broadcast(a, b):
    rank = max(len(a), len(b))
    a = (1,) * (rank - len(a)) + tuple(a)
    b = (1,) * (rank - len(b)) + tuple(b)
    return tuple(max(p, q) for p, q in zip(a, b))


def reduction(g):
    x = g.pick(lambda v: len(v[1]) >= 1 and v[2] != "i1")
    if x is None:
        return unary(g)
    axis = g.rng.randrange(len(x[1]))
    keep = g.rng.random() < 0.3
    out = list(x[1])
    if keep:
        out[axis] = 1
    else:
        del out[axis]
    op = g.rng.choice(("reduce_sum", "reduce_max", "reduce_mean")
                      if x[2] in FLOATS else ("reduce_sum", "reduce_max"))
    suffix = " keepdims" if keep else ""
    return g.emit(f"fuse.{op} {x[0]} axes = [{axis}]{suffix} : "
                  f"{type_of(x[1], x[2])} -> {type_of(out, x[2])}", out, x[2])


def normalisation(g):
    x = g.pick(lambda v: len(v[1]) >= 1 and v[2] in FLOATS)
    if x is None:
        return unary(g)
    t = type_of(x[1], x[2])
    kind = g.rng.choice(("softmax", "layer_norm", "rms_norm"))
    if kind == "softmax":
        axis = g.rng.randrange(len(x[1]))
        return g.emit(f"fuse.softmax {x[0]} axis = {axis} : {t}", x[1], x[2])
    axis = len(x[1]) - 1
    scale = g.arg(x[1][axis:], x[2])
    return g.emit(f"fuse.{kind} {x[0]} scale {scale[0]} axis = {axis} "
                  f"epsilon = 1.0e-05 : ({t}, {type_of(scale[1], x[2])}) -> "
                  f"{t}", x[1], x[2])


def matmul(g):
    x = g.pick(lambda v: len(v[1]) == 2 and v[2] in FLOATS)
    if x is None:
        x = g.arg((g.rng.choice(DIMS), g.rng.choice(DIMS)), g.rng.choice(FLOATS))
    m, k = x[1]
    n = g.rng.choice(DIMS)
    w = g.arg((k, n), x[2])
    return g.emit(f"fuse.matmul {x[0]}, {w[0]} : ({type_of(x[1], x[2])}, "
                  f"{type_of(w[1], x[2])}) -> {type_of((m, n), x[2])}",
                  (m, n), x[2])


def data_movement(g):
    x = g.pick(lambda v: len(v[1]) >= 1)
    if x is None:
        return unary(g)
    shape, dtype = list(x[1]), x[2]
    t = type_of(shape, dtype)
    kind = g.rng.choice(("transpose", "slice", "reshape", "concat", "cast"))
    if kind == "transpose" and len(shape) >= 2:
        perm = list(range(len(shape)))
        g.rng.shuffle(perm)
        out = [shape[p] for p in perm]
        return g.emit(f"fuse.transpose {x[0]} permutation = {perm} : {t} -> "
                      f"{type_of(out, dtype)}", out, dtype)
    if kind == "slice":
        offsets, sizes, strides = [], [], []
        for d in shape:
            step = g.rng.choice((1, 1, 2))
            offset = g.rng.randrange(d)
            size = max(1, (d - offset + step - 1) // step)
            size = g.rng.randint(1, size)
            offsets.append(offset)
            sizes.append(size)
            strides.append(step)
        return g.emit(f"fuse.slice {x[0]} offsets = {offsets} sizes = {sizes} "
                      f"strides = {strides} : {t} -> {type_of(sizes, dtype)}",
                      sizes, dtype)
    if kind == "reshape":
        total = 1
        for d in shape:
            total *= d
        out = [total]
        for f in (2, 3, 4):
            if total % f == 0 and total > f and g.rng.random() < 0.5:
                out = [total // f, f]
                break
        return g.emit(f"fuse.reshape {x[0]} : {t} -> {type_of(out, dtype)}",
                      out, dtype)
    if kind == "concat":
        axis = g.rng.randrange(len(shape))
        out = list(shape)
        out[axis] *= 2
        return g.emit(f"fuse.concat {x[0]}, {x[0]} axis = {axis} : ({t}, {t}) "
                      f"-> {type_of(out, dtype)}", out, dtype)
    # Casts between the float types, from integers and booleans to floats,
    # and from floats to i32 (truncated, saturated, NaN to 0).
    choices = [f for f in FLOATS if f != dtype]
    if dtype in FLOATS:
        choices.append("i32")
    other = g.rng.choice(choices)
    return g.emit(f"fuse.cast {x[0]} : {t} to {type_of(shape, other)}",
                  shape, other)


def integer(g):
    """i32 arithmetic on a value or a new input, or a cast of a boolean."""
    x = g.pick(lambda v: v[2] == "i32")
    if x is None:
        x = g.arg([g.rng.choice(DIMS) for _ in range(g.rng.randint(1, 2))],
                  "i32")
    t = type_of(x[1], "i32")
    if g.rng.random() < 0.4:
        op = g.rng.choice(INT_UNARY)
        return g.emit(f"fuse.{op} {x[0]} : {t}", x[1], "i32")
    y = g.pick(lambda v: v[1] == x[1] and v[2] == "i32")
    op = g.rng.choice(INT_BINARY)
    return g.emit(f"fuse.{op} {x[0]}, {y[0]} : ({t}, {t}) -> {t}", x[1], "i32")


def compare_select(g):
    """A comparison of two values of one type, then a select between two
    values (of any type) of that shape, or a cast of the i1 result."""
    x = g.pick(lambda v: v[2] != "i1")
    y = g.pick(lambda v: v[1] == x[1] and v[2] == x[2])
    t = type_of(x[1], x[2])
    direction = g.rng.choice(COMPARE)
    c = g.emit(f"fuse.compare {direction}, {x[0]}, {y[0]} : ({t}, {t}) -> "
               f"{type_of(x[1], 'i1')}", x[1], "i1")
    if g.rng.random() < 0.3:
        other = g.rng.choice(FLOATS + ("i32",))
        return g.emit(f"fuse.cast {c[0]} : {type_of(c[1], 'i1')} to "
                      f"{type_of(c[1], other)}", c[1], other)
    a = g.pick(lambda v: v[1] == x[1] and v[2] != "i1")
    b = g.pick(lambda v: v[1] == a[1] and v[2] == a[2])
    ta = type_of(a[1], a[2])
    return g.emit(f"fuse.select {c[0]}, {a[0]}, {b[0]} : "
                  f"({type_of(c[1], 'i1')}, {ta}, {ta}) -> {ta}", a[1], a[2])


def collective(g):
    """A collective over the 2 devices of an SPMD graph: an all_reduce, an
    all_gather (mostly along the outer axis, which NCCL places without a
    transpose) or a reduce_scatter along an even axis."""
    x = g.pick(lambda v: len(v[1]) >= 1 and v[2] in FLOATS)
    if x is None:
        return unary(g)
    t = type_of(x[1], x[2])
    kind = g.rng.choice(("all_reduce", "all_gather", "reduce_scatter"))
    out = list(x[1])
    if kind == "all_gather":
        axis = 0 if g.rng.random() < 0.7 else g.rng.randrange(len(out))
        out[axis] *= 2
        return g.emit(f"fuse.all_gather {x[0]} axis = {axis} devices = 2 : "
                      f"{t} -> {type_of(out, x[2])}", out, x[2])
    reduce = g.rng.choice(("sum", "max"))
    even = [a for a, d in enumerate(out) if d % 2 == 0]
    if kind == "reduce_scatter" and even:
        axis = even[0] if g.rng.random() < 0.7 else g.rng.choice(even)
        out[axis] //= 2
        return g.emit(f"fuse.reduce_scatter {reduce}, {x[0]} axis = {axis} "
                      f"devices = 2 : {t} -> {type_of(out, x[2])}", out, x[2])
    return g.emit(f"fuse.all_reduce {reduce}, {x[0]} devices = 2 : {t}",
                  x[1], x[2])


KINDS = ((unary, 4), (binary, 4), (power, 1), (reduction, 2),
         (normalisation, 2),
         (matmul, 1), (data_movement, 3), (integer, 1), (compare_select, 1))
# Added for SPMD graphs only, so that a seed's plain graph stays the same.
SPMD_KINDS = ((collective, 3),)


def generate(seed, spmd=False):
    rng = random.Random(seed)
    g = Graph(rng)
    dtype = rng.choice(FLOATS)
    for _ in range(rng.randint(1, 2)):
        rank = rng.randint(1, 3)
        g.arg([rng.choice(DIMS) for _ in range(rank)], dtype)
    kinds = [k for k, w in KINDS + (SPMD_KINDS if spmd else ())
             for _ in range(w)]
    for _ in range(rng.randint(3, 20)):
        rng.choice(kinds)(g)
    results = [g.values[-1]]
    extra = g.pick(lambda v: v not in g.args and v not in results)
    if extra is not None and rng.random() < 0.5:
        results.append(extra)
    # An SPMD graph's arguments are each device's slice of a global tensor
    # (fuse.shard) or replicated, drawn from a stream of their own.
    shards = random.Random(seed * 7919 + 1)
    attrs = {n: (f" {{fuse.shard = {shards.randrange(len(s))} : i64}}"
                 if spmd and s and shards.random() < 0.5 else "")
             for n, s, _ in g.args}
    params = ", ".join(f"{n}: {type_of(s, d)}{attrs[n]}"
                       for n, s, d in g.args)
    types = ", ".join(type_of(s, d) for _, s, d in results)
    names = ", ".join(n for n, _, _ in results)
    return (f"// fuzz-graphs.py seed {seed}\n"
            f"func.func @g({params}) -> ({types}) {{\n" +
            "\n".join(g.lines) + f"\n  return {names} : {types}\n}}\n")


def generate_window(seed):
    """A row-parallel layer over 2 devices for fuse-window-collectives:
    matmul(h, w) (w split by rows half the time), an all_reduce (sum or
    max), then up to four elementwise ops on the reduced rows (bias,
    residual, activations), h of 128 x C x {1, 2} rows for a chunk count
    C drawn with the graph and named in its first line."""
    rng = random.Random(seed)
    g = Graph(rng)
    dtype = rng.choice(FLOATS)
    chunks = rng.choice((2, 3, 4, 6, 8))
    m, k, n = 128 * chunks * rng.choice((1, 2)), rng.choice(DIMS), \
        rng.choice(DIMS)
    h, w = g.arg((m, k), dtype), g.arg((k, n), dtype)
    t = type_of((m, n), dtype)
    x = g.emit(f"fuse.matmul {h[0]}, {w[0]} : ({type_of(h[1], dtype)}, "
               f"{type_of(w[1], dtype)}) -> {t}", (m, n), dtype)
    x = g.emit(f"fuse.all_reduce {rng.choice(('sum', 'max'))}, {x[0]} "
               f"devices = 2 : {t}", (m, n), dtype)
    for _ in range(rng.randint(0, 4)):
        op = rng.choice(("relu", "tanh", "silu", "bias", "residual"))
        if op in ("bias", "residual"):
            other = g.arg((n,) if op == "bias" else (m, n), dtype)
            x = g.emit(f"fuse.add {x[0]}, {other[0]} : ({t}, "
                       f"{type_of(other[1], dtype)}) -> {t}", (m, n), dtype)
        else:
            x = g.emit(f"fuse.{op} {x[0]} : {t}", (m, n), dtype)
    shard = " {fuse.shard = 0 : i64}" if k % 2 == 0 and rng.random() < 0.5 \
        else ""
    params = ", ".join(f"{name}: {type_of(shape, d)}"
                       f"{shard if name == w[0] else ''}"
                       for name, shape, d in g.args)
    return (f"// fuzz-graphs.py seed {seed} window {chunks}\n"
            f"func.func @g({params}) -> ({t}) {{\n" + "\n".join(g.lines) +
            f"\n  return {x[0]} : {t}\n}}\n")


def generate_layout(seed):
    """A chain computed in a transposed layout, for fuse-sink-transposes: an
    input of rank 3 or 4 transposed by a random permutation (as an importer
    turns NHWC into NCHW), 2 to 8 ops on it (unary, binary with a broadcast
    constant or input, with another input as transposed or not, a reduction
    with or without keepdims, a slice, a concat with itself or a constant),
    then the inverse transpose, another one, or none, before the return."""
    rng = random.Random(seed)
    g = Graph(rng)
    dtype = rng.choice(FLOATS)
    rank = rng.choice((3, 4))
    stored = [rng.choice(DIMS) for _ in range(rank)]
    if rng.random() < 0.25:
        # Equal dimensions, so that a transpose can keep the shape.
        stored = [stored[0]] * rank
    perm = list(range(rank))
    while perm == sorted(perm):
        rng.shuffle(perm)
    x = g.arg(stored, dtype)
    shape = [stored[d] for d in perm]
    cur = g.emit(f"fuse.transpose {x[0]} permutation = {perm} : "
                 f"{type_of(stored, dtype)} -> {type_of(shape, dtype)}",
                 shape, dtype)
    inverse = [perm.index(d) for d in range(rank)]
    for _ in range(rng.randint(2, 8)):
        shape, t = list(cur[1]), type_of(cur[1], dtype)
        kind = rng.choice(("unary", "bias", "bias", "full", "transposed",
                           "reuse", "reduce", "slice", "concat"))
        # An input read as it is where another op reads it transposed (the
        # first one, under a permutation that keeps its shape).
        same = [a for a in g.args if list(a[1]) == shape]
        if kind == "reuse" and not same:
            kind = "full"
        if kind == "unary":
            op = rng.choice(("relu", "neg", "tanh", "exp", "abs"))
            cur = g.emit(f"fuse.{op} {cur[0]} : {t}", shape, dtype)
        elif kind in ("bias", "full", "transposed", "reuse"):
            op = rng.choice(("add", "mul", "sub", "max"))
            if kind == "bias":
                # A broadcast operand: a suffix of the shape, some dims 1.
                k = rng.randint(1, len(shape))
                other = [d if rng.random() < 0.6 else 1 for d in shape[-k:]]
                if rng.random() < 0.5:
                    values = ", ".join(
                        f"{rng.uniform(-2, 2):.3f}"
                        for _ in range(math.prod(other)))
                    const = g.emit(f"fuse.constant dense<[{values}]> : "
                                   f"{type_of([math.prod(other)], dtype)}",
                                   [math.prod(other)], dtype)
                    arg = g.emit(f"fuse.reshape {const[0]} : "
                                 f"{type_of(const[1], dtype)} -> "
                                 f"{type_of(other, dtype)}", other, dtype)
                else:
                    arg = g.arg(other, dtype)
            elif kind == "reuse":
                arg = rng.choice(same)
            elif kind == "full" or len(shape) != rank:
                arg = g.arg(shape, dtype)
            else:
                # Another input in the stored layout, transposed alike.
                inner = [shape[inverse[d]] for d in range(rank)]
                src = g.arg(inner, dtype)
                arg = g.emit(f"fuse.transpose {src[0]} permutation = {perm} : "
                             f"{type_of(inner, dtype)} -> {t}", shape, dtype)
            cur = g.emit(f"fuse.{op} {cur[0]}, {arg[0]} : ({t}, "
                         f"{type_of(arg[1], dtype)}) -> {t}", shape, dtype)
        elif kind == "reduce":
            axis = rng.randrange(len(shape))
            keep = rng.random() < 0.6 or len(shape) == 1
            out = list(shape)
            if keep:
                out[axis] = 1
            else:
                del out[axis]
            op = rng.choice(("reduce_sum", "reduce_max"))
            cur = g.emit(f"fuse.{op} {cur[0]} axes = [{axis}]"
                         f"{' keepdims' if keep else ''} : {t} -> "
                         f"{type_of(out, dtype)}", out, dtype)
        elif kind == "slice":
            offsets, sizes, strides = [], [], []
            for d in shape:
                step = rng.choice((1, 1, 2))
                offset = rng.randrange(d)
                size = rng.randint(1, max(1, (d - offset + step - 1) // step))
                offsets.append(offset)
                sizes.append(size)
                strides.append(step)
            cur = g.emit(f"fuse.slice {cur[0]} offsets = {offsets} sizes = "
                         f"{sizes} strides = {strides} : {t} -> "
                         f"{type_of(sizes, dtype)}", sizes, dtype)
        else:
            axis = rng.randrange(len(shape))
            pad = list(shape)
            pad[axis] = 1
            out = list(shape)
            if rng.random() < 0.5:
                other = g.emit(f"fuse.constant dense<-1.0> : "
                               f"{type_of(pad, dtype)}", pad, dtype)
                out[axis] += 1
            else:
                other = cur
                out[axis] *= 2
            cur = g.emit(f"fuse.concat {cur[0]}, {other[0]} axis = {axis} : "
                         f"({t}, {type_of(other[1], dtype)}) -> "
                         f"{type_of(out, dtype)}", out, dtype)
    shape = list(cur[1])
    ending = rng.choice(("inverse", "inverse", "other", "none"))
    if ending != "none" and len(shape) == rank:
        back = inverse if ending == "inverse" else rng.sample(range(rank), rank)
        out = [shape[d] for d in back]
        cur = g.emit(f"fuse.transpose {cur[0]} permutation = {back} : "
                     f"{type_of(shape, dtype)} -> {type_of(out, dtype)}",
                     out, dtype)
    params = ", ".join(f"{n}: {type_of(sh, d)}" for n, sh, d in g.args)
    t = type_of(cur[1], dtype)
    return (f"// fuzz-graphs.py seed {seed} layout\n"
            f"func.func @g({params}) -> ({t}) {{\n" + "\n".join(g.lines) +
            f"\n  return {cur[0]} : {t}\n}}\n")


def generate_conv(seed):
    """A grouped conv2d (depthwise or several channels a group: at most 64
    products an output, which fuse-decompose writes as windows, or, in a
    third of the graphs, wider groups, which the GEMM kernels run one group
    at a time) with random strides, asymmetric padding and dilation (in a
    quarter of the graphs an input dilation too: a transposed convolution's
    form), its input sometimes transposed from NCHW as the ONNX importer
    does, sometimes made by a pointwise (groups = 1) conv2d, its filter an
    argument or (two graphs in five) a constant, followed by a bias and
    ReLU6 or a residual add of its own shape."""
    rng = random.Random(seed)
    g = Graph(rng)
    dtype = rng.choice(FLOATS)
    n = rng.choice((1, 2))
    h, w = rng.randint(1, 12), rng.randint(1, 12)
    groups = rng.choice((1, 2, 3, 4, 8))
    per_in = rng.choice((1, 1, 1, 2, 4))
    per_out = rng.choice((1, 1, 2, 3))
    c, f = groups * per_in, groups * per_out
    if groups == 1:
        # A depthwise convolution of the channels (groups = C).
        groups = c = f = rng.choice((2, 5, 8, 16))
        per_in, per_out = 1, 1
    while True:
        kh, kw = rng.choice((1, 2, 3, 5, 7)), rng.choice((1, 2, 3, 5, 7))
        if kh * kw * per_in <= 64:
            break
    # Wide groups from a generator of their own, so that the other graphs
    # of a seed are those of the earlier builds.
    wide = random.Random(seed * 7919 + 17)
    if wide.random() < 1 / 3:
        groups = wide.choice((2, 3, 4))
        per_in = wide.choice((8, 9, 12, 16, 32))
        per_out = wide.choice((1, 3, 8, 16))
        c, f = groups * per_in, groups * per_out
        while True:
            kh, kw = wide.choice((1, 2, 3, 5)), wide.choice((1, 2, 3, 5))
            if 64 < kh * kw * per_in <= 512:
                break
    sh, sw = rng.choice((1, 1, 2, 3)), rng.choice((1, 1, 2, 3))
    dh, dw = rng.choice((1, 1, 2)), rng.choice((1, 1, 2))
    pads = [rng.randint(0, 3) for _ in range(4)]  # top, bottom, left, right
    # A transposed convolution's form in a quarter of the graphs: the input
    # dilated by 2 or 3 (from a generator of its own, as the wide groups).
    spread = random.Random(seed * 104729 + 5)
    lh, lw = 1, 1
    if spread.random() < 0.25:
        lh, lw = spread.choice((1, 2, 3)), spread.choice((2, 3))
    # Room for one output row and column at least.
    while (h - 1) * lh + 1 + pads[0] + pads[1] < dh * (kh - 1) + 1:
        h += 1
    while (w - 1) * lw + 1 + pads[2] + pads[3] < dw * (kw - 1) + 1:
        w += 1
    oh = ((h - 1) * lh + 1 + pads[0] + pads[1] - dh * (kh - 1) - 1) // sh + 1
    ow = ((w - 1) * lw + 1 + pads[2] + pads[3] - dw * (kw - 1) - 1) // sw + 1
    shape = (n, h, w, c)
    source = rng.random()
    if source < 0.3:
        x = g.arg((n, c, h, w), dtype)
        x = g.emit(f"fuse.transpose {x[0]} permutation = [0, 2, 3, 1] : "
                   f"{type_of(x[1], dtype)} -> {type_of(shape, dtype)}",
                   shape, dtype)
    elif source < 0.5:
        cin = rng.choice((3, 8))
        x = g.arg((n, h, w, cin), dtype)
        pw = g.arg((c, 1, 1, cin), dtype)
        x = g.emit(f"fuse.conv2d {x[0]}, {pw[0]} strides = [1, 1] padding = "
                   f"[0, 0, 0, 0] dilation = [1, 1] groups = 1 : "
                   f"({type_of(x[1], dtype)}, {type_of(pw[1], dtype)}) -> "
                   f"{type_of(shape, dtype)}", shape, dtype)
    else:
        x = g.arg(shape, dtype)
    # In two graphs of five the filter is a constant, as the ONNX
    # importer's weights are (each tap's weights then a vector of their own:
    # the windows kernel reads them whole, and by default computes
    # neighbouring outputs of a row a thread), from a generator of its own.
    weights = random.Random(seed * 15485863 + 11)
    if weights.random() < 0.4:
        fshape = (f, kh, kw, per_in)
        count = f * kh * kw * per_in
        values = [weights.randint(-8, 8) / 8.0 for _ in range(count)]
        # Nested lists, innermost dimension first; Python's repr of them
        # is the dense literal.
        for extent in reversed(fshape[1:]):
            values = [values[i:i + extent]
                      for i in range(0, len(values), extent)]
        filt = g.emit(f"fuse.constant dense<{values!r}> : "
                      f"{type_of(fshape, dtype)}", fshape, dtype)
    else:
        filt = g.arg((f, kh, kw, per_in), dtype)
    out = (n, oh, ow, f)
    dilated = f" input_dilation = [{lh}, {lw}]" if (lh, lw) != (1, 1) else ""
    y = g.emit(f"fuse.conv2d {x[0]}, {filt[0]} strides = [{sh}, {sw}] "
               f"padding = {pads} dilation = [{dh}, {dw}] groups = {groups}"
               f"{dilated} "
               f": ({type_of(shape, dtype)}, {type_of(filt[1], dtype)}) -> "
               f"{type_of(out, dtype)}", out, dtype)
    t = type_of(out, dtype)
    tail = rng.random()
    if tail < 0.4:
        b = g.arg((f,), dtype)
        y = g.emit(f"fuse.add {y[0]}, {b[0]} : ({t}, {type_of((f,), dtype)}) "
                   f"-> {t}", out, dtype)
        zero = g.emit(f"fuse.constant dense<0.0> : tensor<{dtype}>", (), dtype)
        six = g.emit(f"fuse.constant dense<6.0> : tensor<{dtype}>", (), dtype)
        y = g.emit(f"fuse.max {y[0]}, {zero[0]} : ({t}, tensor<{dtype}>) -> "
                   f"{t}", out, dtype)
        y = g.emit(f"fuse.min {y[0]}, {six[0]} : ({t}, tensor<{dtype}>) -> "
                   f"{t}", out, dtype)
    elif tail < 0.6:
        r = g.arg(out, dtype)
        y = g.emit(f"fuse.add {y[0]}, {r[0]} : ({t}, {t}) -> {t}", out, dtype)
    params = ", ".join(f"{a}: {type_of(s, d)}" for a, s, d in g.args)
    return (f"// fuzz-graphs.py seed {seed} conv\n"
            f"func.func @g({params}) -> {t} {{\n" + "\n".join(g.lines) +
            f"\n  return {y[0]} : {t}\n}}\n")


def window_chunks(path):
    """The chunk count generate_window named in the graph's first line."""
    with open(path) as f:
        match = re.search(r"window (\d+)", f.readline())
    return match.group(1) if match else "auto"


def graph_for(seed, modes):
    if "--check-fusion-window" in modes:
        return generate_window(seed)
    if any(mode.endswith("-layout") for mode in modes):
        return generate_layout(seed)
    if any(mode.endswith("-conv") for mode in modes):
        return generate_conv(seed)
    return generate(seed, spmd="--check-fusion-spmd" in modes)


MODES = {"--check-fusion": ["--check-fusion"],
         "--check-fusion-spmd": ["--check-fusion", "--devices=2"],
         "--emit=ptx": ["--emit=ptx", "-o", os.devnull],
         "--check": ["--check"],
         "--check-strict": ["--check", "--numerics=strict"],
         "--check-on-host": ["--check-on-host"],
         "--check-on-host-strict": ["--check-on-host", "--numerics=strict"],
         "--check-on-host-spmd": ["--check-on-host", "--devices=2"],
         # GEMM kernels in their mma.sync form, which the host runs.
         "--check-on-host-sm80": ["--check-on-host", "--chip=sm_80"],
         # Row-parallel layers split into the chunks the graph names.
         "--check-fusion-window": lambda path: [
             "--check-fusion", "--devices=2",
             "--overlap-collectives=" + window_chunks(path)],
         "--check-on-host-window": lambda path: [
             "--check-on-host", "--devices=2", "--chip=sm_80",
             "--overlap-collectives=" + window_chunks(path)],
         "--emit=ptx-window": lambda path: [
             "--emit=ptx", "-o", os.devnull,
             "--overlap-collectives=" + window_chunks(path)],
         # Transposed chains (generate_layout) for fuse-sink-transposes.
         "--check-fusion-layout": ["--check-fusion"],
         "--check-on-host-layout": ["--check-on-host", "--chip=sm_80"],
         "--emit=ptx-layout": ["--emit=ptx", "-o", os.devnull],
         # Grouped convolutions (generate_conv): fuse-decompose's windows
         # against the conv2d as written, and on the host.
         "--check-fusion-conv": ["--check-fusion"],
         "--check-on-host-conv": ["--check-on-host", "--chip=sm_80"],
         # The windows again with up to 8 neighbouring outputs of a row a
         # thread (--window-rows), their shared loads merged.
         "--check-on-host-rows-conv": ["--check-on-host", "--chip=sm_80",
                                       "--window-rows=8"],
         "--emit=ptx-conv": ["--emit=ptx", "-o", os.devnull],
         # The same two generators' graphs on the GPU: the sm_90 kernels
         # (wgmma GEMMs of the grouped convolutions) the host cannot run.
         "--check-layout": ["--check"],
         "--check-conv": ["--check"]}
# The modes --each-function can run (it compiles; it does not write PTX).
BATCHABLE = ("--check-fusion", "--check-fusion-spmd", "--check",
             "--check-strict", "--check-on-host", "--check-on-host-strict",
             "--check-on-host-spmd", "--check-on-host-sm80",
             "--check-fusion-layout", "--check-on-host-layout",
             "--check-fusion-conv", "--check-on-host-conv",
             "--check-on-host-rows-conv", "--check-layout", "--check-conv")
# The CPU pair runs anywhere; the GPU pair needs the device machine.
MODE_SETS = {"cpu": ("--check-fusion", "--emit=ptx"),
             "spmd": ("--check-fusion-spmd", "--check-on-host-spmd",
                      "--emit=ptx"),
             "gpu": ("--check", "--check-strict"),
             "host": ("--check-on-host", "--check-on-host-strict",
                      "--check-on-host-sm80"),
             "window": ("--check-fusion-window", "--check-on-host-window",
                        "--emit=ptx-window"),
             "layout": ("--check-fusion-layout", "--check-on-host-layout",
                        "--emit=ptx-layout"),
             "conv": ("--check-fusion-conv", "--check-on-host-conv",
                      "--check-on-host-rows-conv", "--emit=ptx-conv"),
             "layout-gpu": ("--check-layout",),
             "conv-gpu": ("--check-conv",)}


def outcome(opt_fuse, path, mode):
    """(kind, exit code, output) of one run of opt-fuse on `path`."""
    try:
        args = MODES[mode](path) if callable(MODES[mode]) else MODES[mode]
        done = subprocess.run([opt_fuse, path, *args],
                              capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return "failure", "timeout", ""
    text = done.stdout + done.stderr
    if done.returncode == 0 and mode.startswith("--check-fusion") and \
            "differ" in text:
        return "failure", 0, text
    if done.returncode == 0:
        return "pass", 0, ""
    if done.returncode == 4:
        return "unsupported", 4, text
    if done.returncode == 5:
        sys.exit("fuzz-graphs: --check needs a GPU: " + text.strip())
    return "failure", done.returncode, text


def run_one(opt_fuse, seed, directory, modes):
    path = os.path.join(directory, f"seed{seed}.mlir")
    with open(path, "w") as f:
        f.write(graph_for(seed, modes))
    outcomes = []
    for mode in modes:
        kind, code, text = outcome(opt_fuse, path, mode)
        outcomes.append((kind, mode, code, text))
    return seed, path, outcomes


def run_batch(opt_fuse, seeds, directory, modes):
    """run_one for several seeds with one opt-fuse process per mode: the
    graphs go into one module (@g renamed @s<seed>) run with
    --each-function, so the GPU context is created once. A seed that does
    not pass there (or that a crash left without its closing line) runs
    again alone, which gives its exact outcome and the file to reduce."""
    paths, texts = {}, []
    for seed in seeds:
        paths[seed] = os.path.join(directory, f"seed{seed}.mlir")
        text = graph_for(seed, modes)
        with open(paths[seed], "w") as f:
            f.write(text)
        texts.append(text.replace("func.func @g(", f"func.func @s{seed}(", 1))
    batch = os.path.join(directory, f"batch{seeds[0]}.mlir")
    with open(batch, "w") as f:
        f.write("\n".join(texts))
    passed = {mode: set() for mode in modes}
    for mode in modes:
        if mode not in BATCHABLE:
            continue
        try:
            output = subprocess.run(
                [opt_fuse, batch, "--each-function", *MODES[mode]],
                capture_output=True, text=True,
                timeout=60 * len(seeds)).stdout
        except subprocess.TimeoutExpired as e:
            output = e.stdout.decode() if isinstance(e.stdout, bytes) \
                else (e.stdout or "")
        for match in re.finditer(r"^opt-fuse: @s(\d+): exit (\d+)$", output,
                                 re.M):
            if match.group(2) == "0":
                passed[mode].add(int(match.group(1)))
    results = []
    for seed in seeds:
        outcomes = []
        for mode in modes:
            if seed in passed[mode]:
                outcomes.append(("pass", mode, 0, ""))
            else:
                kind, code, text = outcome(opt_fuse, paths[seed], mode)
                outcomes.append((kind, mode, code, text))
        results.append((seed, paths[seed], outcomes))
    return results


def result_type(line):
    """The result type of one op line as the generator prints it."""
    tail = line.rsplit(" : ", 1)[1]
    for mark in ("->", " to "):
        if mark in tail:
            return tail.rsplit(mark, 1)[1].strip()
    return tail.strip()


def reduce_graph(text, fails):
    """Shrinks `text` while `fails(candidate)` holds: each op in turn is
    replaced by a new argument of its type (its line removed), then
    arguments nothing uses and extra results are dropped; until no step
    applies. Returns the smallest failing text found."""
    header, *rest = text.strip().splitlines()
    comment = header if header.startswith("//") else None
    if comment:
        header, *rest = rest
    body, ret = rest[:-2], rest[-2]
    # One result may be written without parentheses (the conv and layout
    # graphs' are).
    match = re.match(r"func\.func @(\w+)\((.*)\) -> (?:\((.*)\)|(.*)) \{$",
                     header)
    name, params = match.group(1), match.group(2)
    params = [p.split(": ", 1) for p in params.split(", ")] if params else []
    names, types = ret.strip()[len("return "):].split(" : ")
    results = list(zip(names.split(", "), types.split(", ")))

    def render(params, body, results):
        signature = ", ".join(f"{n}: {t}" for n, t in params)
        out = ", ".join(t for _, t in results)
        lines = ([comment + " (reduced)"] if comment else []) + \
            [f"func.func @{name}({signature}) -> ({out}) {{"] + body + \
            ["  return " + ", ".join(n for n, _ in results) + " : " + out,
             "}"]
        return "\n".join(lines) + "\n"

    def uses(value, lines):
        pattern = re.compile(re.escape(value) + r"(?![\w])")
        return any(pattern.search(l) for l in lines)

    fresh = 0
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(body))):
            value = body[i].split(" = ", 1)[0].strip()
            replacement = f"%r{fresh}"
            pattern = re.compile(re.escape(value) + r"(?![\w])")
            new_body = [pattern.sub(replacement, l)
                        for j, l in enumerate(body) if j != i]
            new_results = [(pattern.sub(replacement, n), t)
                           for n, t in results]
            new_params = params + [[replacement, result_type(body[i])]]
            candidate = render(new_params, new_body, new_results)
            if fails(candidate):
                body, results, params = new_body, new_results, new_params
                fresh += 1
                changed = True
                break
        if changed:
            continue
        for k in range(len(params)):
            kept = body + [n for n, _ in results]
            if not uses(params[k][0], kept):
                candidate = render(params[:k] + params[k + 1:], body, results)
                if fails(candidate):
                    params = params[:k] + params[k + 1:]
                    changed = True
                    break
        if changed or len(results) < 2:
            continue
        for k in range(len(results)):
            candidate = render(params, body, results[:k] + results[k + 1:])
            if fails(candidate):
                results = results[:k] + results[k + 1:]
                changed = True
                break
    return render(params, body, results)


def reduce_file(opt_fuse, path, mode, directory):
    """The reduced graph of a failing one: same kind and exit code."""
    with open(path) as f:
        text = f.read()
    want = outcome(opt_fuse, path, mode)[:2]
    trial = os.path.join(directory, "reduce-trial.mlir")

    def fails(candidate):
        with open(trial, "w") as f:
            f.write(candidate)
        return outcome(opt_fuse, trial, mode)[:2] == want

    return reduce_graph(text, fails)


def parse_seeds(text):
    if "-" in text:
        first, last = text.split("-")
        return range(int(first), int(last) + 1)
    return [int(s) for s in text.split(",")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--opt-fuse", default="build/bin/opt-fuse")
    parser.add_argument("--seeds", default="0-99",
                        help="a range (0-99) or a list (3,17)")
    parser.add_argument("--keep", help="copy failing graphs and outputs here")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--print", type=int, metavar="SEED",
                        help="print the graph of one seed and exit")
    parser.add_argument("--reduce", metavar="FILE",
                        help="print a minimal graph that fails like FILE "
                             "(with --mode) and exit")
    parser.add_argument("--mode", choices=list(MODES), default="--emit=ptx",
                        help="the run --reduce repeats")
    parser.add_argument("--progress", type=int, default=0, metavar="N",
                        help="print the counts so far every N graphs")
    parser.add_argument("--batch", type=int, default=1, metavar="N",
                        help="run N graphs per opt-fuse process "
                             "(--each-function): one GPU context for all "
                             "of them; failures run again alone")
    parser.add_argument("--modes", choices=list(MODE_SETS), default="cpu",
                        help="cpu: --check-fusion and --emit=ptx; spmd: "
                             "graphs with collectives and sharded "
                             "arguments, --check-fusion --devices=2, "
                             "--check-on-host --devices=2 and --emit=ptx; gpu: --check in the default and "
                             "the strict numerics (needs a GPU); host: the "
                             "same through --check-on-host (no GPU; "
                             "sm_90 GEMM kernels count as unsupported), "
                             "and once more with --chip=sm_80, whose "
                             "mma.sync GEMMs the host runs; window: "
                             "row-parallel layers split into row chunks "
                             "(--overlap-collectives), --check-fusion "
                             "--devices=2, --check-on-host --devices=2 "
                             "--chip=sm_80 and --emit=ptx; layout, conv: "
                             "transposed chains and grouped convolutions "
                             "through --check-fusion, --check-on-host "
                             "--chip=sm_80 and --emit=ptx; layout-gpu, "
                             "conv-gpu: the same graphs through --check "
                             "(needs a GPU)")
    args = parser.parse_args()
    if args.print is not None:
        sys.stdout.write(graph_for(args.print, MODE_SETS[args.modes]))
        return 0
    if args.reduce:
        kind, code, _ = outcome(args.opt_fuse, args.reduce, args.mode)
        if kind != "failure":
            print(f"fuzz-graphs: {args.reduce} does not fail {args.mode} "
                  f"({kind}, exit {code})", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory() as tmp:
            sys.stdout.write(reduce_file(args.opt_fuse, args.reduce,
                                         args.mode, tmp))
        return 0
    seeds = parse_seeds(args.seeds)
    counts = collections.Counter()
    unsupported = collections.Counter()
    failures = []
    modes = MODE_SETS[args.modes]
    graphs_done = 0
    batches = [list(seeds[i:i + args.batch])
               for i in range(0, len(seeds), max(1, args.batch))]

    def run_chunk(chunk, tmp):
        if len(chunk) == 1:
            return [run_one(args.opt_fuse, chunk[0], tmp, modes)]
        return run_batch(args.opt_fuse, chunk, tmp, modes)

    with tempfile.TemporaryDirectory() as tmp, \
            ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for seed, path, outcomes in itertools.chain.from_iterable(
                pool.map(lambda c: run_chunk(c, tmp), batches)):
            for kind, mode, code, text in outcomes:
                counts[kind] += 1
                if kind == "unsupported":
                    line = next((l for l in text.splitlines() if "error" in l),
                                text.strip()[:200])
                    unsupported[line.split("error:", 1)[-1].strip()] += 1
                if kind == "failure":
                    failures.append((seed, mode, code, text))
                    if args.keep:
                        os.makedirs(args.keep, exist_ok=True)
                        with open(path) as f:
                            graph = f.read()
                        with open(os.path.join(args.keep, f"seed{seed}.mlir"),
                                  "w") as f:
                            f.write(graph)
                        with open(os.path.join(args.keep, f"seed{seed}.txt"),
                                  "a") as f:
                            f.write(f"{mode}: exit {code}\n{text}\n")
                        with open(os.path.join(args.keep,
                                               f"seed{seed}.min.mlir"),
                                  "w") as f:
                            f.write(reduce_file(args.opt_fuse, path, mode,
                                                tmp))
            graphs_done += 1
            if args.progress and graphs_done % args.progress == 0:
                print(f"fuzz-graphs: {graphs_done} graphs so far: "
                      f"{counts['pass']} passed, {counts['unsupported']} "
                      f"unsupported, {counts['failure']} failed", flush=True)
    print(f"fuzz-graphs: {len(seeds)} graphs, {sum(counts.values())} runs: "
          f"{counts['pass']} passed, {counts['unsupported']} unsupported "
          f"(exit 4), {counts['failure']} failed")
    for message, count in unsupported.most_common(10):
        print(f"  unsupported x{count}: {message}")
    for seed, mode, code, text in failures[:20]:
        first = text.strip().splitlines()[:3]
        print(f"  FAIL seed {seed} {mode}: exit {code}: " + " | ".join(first))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
