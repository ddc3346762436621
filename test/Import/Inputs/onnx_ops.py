#!/usr/bin/env python3
"""ONNX ops against their specification, without a GPU or NumPy.

  onnx_ops.py DIR [CASE ...]

For each case: writes a one-op (or few-op) ONNX model in protobuf text and
its inputs as .npy, runs `opt-fuse MODEL --check-on-host --chip=sm_80
--inputs ... --save-outputs ...` (the compiled kernels interpreted on the
host, checked against opfuse's reference), then reads the saved outputs
and compares them with the formula of the ONNX specification, computed
here in f64. --check-on-host alone cannot tell a wrong translation from a
right one (the reference runs the translated graph); this does. Prints
"CASE: ok (max error E)" or "CASE: FAIL ..." per case; exits 1 if any
failed.
"""
import math
import os
import struct
import subprocess
import sys

# ----------------------------------------------------------------- .npy ----

DESCR = {"f32": ("<f4", "f"), "i64": ("<i8", "q"), "i32": ("<i4", "i")}


def save_npy(path, dtype, shape, values):
    descr, fmt = DESCR[dtype]
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def load_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    major = data[6]
    if major == 1:
        (length,) = struct.unpack("<H", data[8:10])
        start = 10
    else:
        (length,) = struct.unpack("<I", data[8:12])
        start = 12
    header = eval(data[start:start + length].decode())  # a Python literal
    body = data[start + length:]
    fmt = {"<f4": "f", "<i8": "q", "<i4": "i", "|b1": "?"}[header["descr"]]
    shape = tuple(header["shape"])
    count = math.prod(shape)
    return shape, list(struct.unpack("<%d%s" % (count, fmt), body))


# ------------------------------------------------------------- models ----

ELEM = {"f32": 1, "i64": 7, "i32": 6}


def value_info(name, dtype, shape):
    dims = " ".join("dim { dim_value: %d }" % d for d in shape)
    return ('{ name: "%s" type { tensor_type { elem_type: %d shape { %s } } } }'
            % (name, ELEM[dtype], dims))


def attribute(name, value):
    if isinstance(value, float):
        return 'attribute { name: "%s" type: FLOAT f: %r }' % (name, value)
    if isinstance(value, int):
        return 'attribute { name: "%s" type: INT i: %d }' % (name, value)
    if isinstance(value, str):
        return 'attribute { name: "%s" type: STRING s: "%s" }' % (name, value)
    if all(isinstance(v, float) for v in value):
        return 'attribute { name: "%s" type: FLOATS floats: [%s] }' % (
            name, ", ".join(repr(v) for v in value))
    return 'attribute { name: "%s" type: INTS ints: [%s] }' % (
        name, ", ".join(str(v) for v in value))


def node(op, inputs, output, **attrs):
    ins = ", ".join('"%s"' % i for i in inputs)
    text = 'node { op_type: "%s" input: [%s] output: "%s"' % (op, ins, output)
    for name, value in attrs.items():
        text += " " + attribute(name, value)
    return text + " }"


def initializer(name, dtype, shape, values):
    field = {"f32": "float_data", "i64": "int64_data", "i32": "int32_data"}
    dims = ", ".join(str(d) for d in shape)
    return ('initializer { name: "%s" data_type: %d dims: [%s] %s: [%s] }'
            % (name, ELEM[dtype], dims, field[dtype],
               ", ".join(repr(v) for v in values)))


def model(inputs, outputs, nodes, initializers=(), opset=17):
    lines = ["ir_version: 8",
             'opset_import { domain: "" version: %d }' % opset,
             "graph {", '  name: "case"']
    lines += ["  input " + value_info(n, t, s) for n, t, s in inputs]
    lines += ["  " + i for i in initializers]
    lines += ["  " + n for n in nodes]
    lines += ['  output { name: "%s" }' % n for n in outputs]
    lines.append("}")
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------- cases ----

class Case:
    """One model: its inputs' values, and the outputs the specification
    gives for them (name -> (shape, values))."""

    def __init__(self, text, inputs, expected, rtol=2e-6, atol=2e-6):
        self.text, self.inputs, self.expected = text, inputs, expected
        self.rtol, self.atol = rtol, atol


def ramp(count, low, high):
    """`count` values from low to high, zero among them when in range."""
    values = [low + (high - low) * i / (count - 1) for i in range(count)]
    if low < 0 < high:
        values[min(range(count), key=lambda i: abs(values[i]))] = 0.0
    return values


def f32(v):
    """v rounded to f32, as the input file holds it."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def unary_case(op, fn, low=-8.0, high=8.0, opset=17, rtol=2e-6, atol=2e-6,
               **attrs):
    shape = (4, 33)
    x = [f32(v) for v in ramp(math.prod(shape), low, high)]
    text = model([("x", "f32", shape)], ["y"], [node(op, ["x"], "y", **attrs)],
                 opset=opset)
    return Case(text, {"x": ("f32", shape, x)},
                {"y": (shape, [fn(v) for v in x])}, rtol, atol)


def softplus(v):
    return max(v, 0.0) + math.log1p(math.exp(-abs(v)))


def hard_sigmoid(v, alpha, beta):
    return max(0.0, min(1.0, alpha * v + beta))


SELU_ALPHA = f32(1.67326319217681884765625)
SELU_GAMMA = f32(1.05070102214813232421875)


def prelu_case():
    shape, slope_shape = (2, 3, 4, 5), (3, 1, 1)
    x = [f32(v) for v in ramp(math.prod(shape), -5.0, 4.0)]
    slope = [0.25, -0.5, 2.0]
    text = model([("x", "f32", shape)], ["y"],
                 [node("PRelu", ["x", "s"], "y")],
                 [initializer("s", "f32", slope_shape, slope)])
    y = []
    for i, v in enumerate(x):
        channel = (i // 20) % 3
        y.append(v if v >= 0 else slope[channel] * v)
    return Case(text, {"x": ("f32", shape, x)}, {"y": (shape, y)})


def sign_case():
    shape = (3, 7)
    x = [-3.0, -1e-30, -0.0, 0.0, 1e-30, 2.5, 7.0] * 3
    text = model([("x", "f32", shape)], ["y"], [node("Sign", ["x"], "y")])
    return Case(text, {"x": ("f32", shape, x)},
                {"y": (shape, [float((v > 0) - (v < 0)) for v in x])})


def unravel(shape, index):
    coords = []
    for d in reversed(shape):
        coords.append(index % d)
        index //= d
    return tuple(reversed(coords))


def reduce_values(shape, values, axes, keepdims, fn):
    """fn over the elements of each group that `axes` reduce, and the
    result's shape."""
    groups = {}
    for i, v in enumerate(values):
        c = unravel(shape, i)
        key = tuple(0 if d in axes else x for d, x in enumerate(c))
        groups.setdefault(key, []).append(v)
    kept = tuple(1 if d in axes else n for d, n in enumerate(shape))
    out = [fn(groups[unravel(kept, i)]) for i in range(math.prod(kept))]
    result = kept if keepdims else tuple(
        n for d, n in enumerate(shape) if d not in axes)
    return result, out


def reduce_case(op, fn, axes=(1,), keepdims=1, opset=18, low=-6.0, high=5.0,
                rtol=4e-6, atol=2e-6, noop=None):
    shape = (3, 5, 7)
    x = [f32(v) for v in ramp(math.prod(shape), low, high)]
    # Interleaved so each group holds values from the whole range.
    x = x[::2] + x[1::2]
    attrs = {"keepdims": keepdims}
    inits = []
    inputs = ["x"]
    if opset >= 18:
        inits.append(initializer("axes", "i64", (len(axes),), list(axes)))
        inputs.append("axes")
    else:
        attrs["axes"] = list(axes)
    if noop is not None:
        attrs["noop_with_empty_axes"] = noop
        inits, inputs = [], ["x"]
    text = model([("x", "f32", shape)], ["y"],
                 [node(op, inputs, "y", **attrs)], inits, opset=opset)
    if noop:
        expected = (shape, x)
    else:
        expected = reduce_values(shape, x, axes, keepdims, fn)
    return Case(text, {"x": ("f32", shape, x)}, {"y": expected}, rtol, atol)


def logsumexp(values):
    m = max(values)
    return m + math.log(sum(math.exp(v - m) for v in values))


def group_norm_case(op, shape, groups, scale, bias, opset, eps=None,
                    inputs=False, **attrs):
    """InstanceNormalization (groups = channels) or GroupNormalization; the
    scale and bias hold one value per channel or, for GroupNormalization
    before opset 21, per group."""
    c = shape[1]
    if eps is not None:
        attrs["epsilon"] = eps
    x = [f32(v) for v in ramp(math.prod(shape), -3.0, 7.0)]
    x = [f32(v * (1 + (i % 7) * 0.3)) for i, v in enumerate(x[::-1])]
    feeds = {"x": ("f32", shape, x)}
    params = {"scale": scale, "bias": bias}
    if inputs:  # graph inputs, not constants the importer could fold
        feeds.update((k, ("f32", (len(v),), v)) for k, v in params.items())
        inits = []
    else:
        inits = [initializer(k, "f32", (len(v),), v)
                 for k, v in params.items()]
    text = model([(k, t, s) for k, (t, s, _) in feeds.items()], ["y"],
                 [node(op, ["x", "scale", "bias"], "y", **attrs)], inits,
                 opset=opset)
    spatial = math.prod(shape[2:])
    per_group = c // groups * spatial
    y = [0.0] * len(x)
    for start in range(0, len(x), per_group):
        row = x[start:start + per_group]
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        for k, v in enumerate(row):
            i = start + k
            channel = i // spatial % c
            p = channel * len(scale) // c
            y[i] = (v - mean) / math.sqrt(var + f32(1e-5 if eps is None else eps)) * scale[p] + bias[p]
    return Case(text, feeds, {"y": (shape, y)}, rtol=1e-5, atol=1e-5)


def conv1d_case(n, c, length, f, k, stride=1, dilation=1, pads=(0, 0),
                groups=1, bias=True, auto_pad=None):
    x = [f32(v) for v in ramp(n * c * length, -2.0, 3.0)]
    w = [f32(((i * 7) % 11 - 5) / 8) for i in range(f * (c // groups) * k)]
    b = [f32(0.25 * i - 0.5) for i in range(f)]
    attrs = {"strides": [stride], "dilations": [dilation],
             "kernel_shape": [k]}
    if auto_pad:
        attrs["auto_pad"] = auto_pad
        out = -(-length // stride)
        total = max(0, (out - 1) * stride + dilation * (k - 1) + 1 - length)
        pads = (total // 2, total - total // 2)
    else:
        attrs["pads"] = list(pads)
    if groups > 1:
        attrs["group"] = groups
    inits = [initializer("w", "f32", (f, c // groups, k), w)]
    inputs = ["x", "w"]
    if bias:
        inits.append(initializer("b", "f32", (f,), b))
        inputs.append("b")
    text = model([("x", "f32", (n, c, length))], ["y"],
                 [node("Conv", inputs, "y", **attrs)], inits)
    out = (length + pads[0] + pads[1] - dilation * (k - 1) - 1) // stride + 1
    per_group_in, per_group_out = c // groups, f // groups
    y = []
    for b_ in range(n):
        for o in range(f):
            gi = o // per_group_out
            for p in range(out):
                acc = b[o] if bias else 0.0
                for ci in range(per_group_in):
                    for t in range(k):
                        pos = p * stride + t * dilation - pads[0]
                        if 0 <= pos < length:
                            channel = gi * per_group_in + ci
                            acc += (x[(b_ * c + channel) * length + pos] *
                                    w[(o * per_group_in + ci) * k + t])
                y.append(acc)
    return Case(text, {"x": ("f32", (n, c, length), x)},
                {"y": ((n, f, out), y)}, rtol=1e-5, atol=1e-5)


def conv2d_case(n, c, hw, f, k, stride=1, pad=0, groups=1, dilation=1):
    """A 2-D Conv (NCHW, OIHW filter, bias), square: hw x hw input, k x k
    kernel, the same stride, pad and dilation on both axes."""
    x = [f32(v) for v in ramp(n * c * hw * hw, -2.0, 3.0)]
    cg = c // groups
    w = [f32(((i * 7) % 13 - 6) / 8) for i in range(f * cg * k * k)]
    b = [f32(0.125 * i - 0.5) for i in range(f)]
    attrs = {"strides": [stride, stride], "pads": [pad] * 4,
             "dilations": [dilation, dilation], "kernel_shape": [k, k]}
    if groups > 1:
        attrs["group"] = groups
    text = model([("x", "f32", (n, c, hw, hw))], ["y"],
                 [node("Conv", ["x", "w", "b"], "y", **attrs)],
                 [initializer("w", "f32", (f, cg, k, k), w),
                  initializer("b", "f32", (f,), b)])
    out = (hw + 2 * pad - dilation * (k - 1) - 1) // stride + 1
    fg = f // groups
    y = []
    for b_ in range(n):
        for o in range(f):
            for r in range(out):
                for q in range(out):
                    acc = b[o]
                    for ci in range(cg):
                        channel = o // fg * cg + ci
                        for i in range(k):
                            for j in range(k):
                                rr = r * stride + i * dilation - pad
                                qq = q * stride + j * dilation - pad
                                if 0 <= rr < hw and 0 <= qq < hw:
                                    acc += (x[((b_ * c + channel) * hw + rr)
                                              * hw + qq] *
                                            w[((o * cg + ci) * k + i) * k + j])
                    y.append(acc)
    return Case(text, {"x": ("f32", (n, c, hw, hw), x)},
                {"y": ((n, f, out, out), y)}, rtol=1e-5, atol=1e-5)


def conv_transpose_case(n, c, size, f, k, stride, pads, groups=1,
                        dilation=1, output_padding=0, output_shape=None,
                        auto_pad=None, bias=True, filter_input=False):
    """ConvTranspose (NCHW, or NCL when `size` has one entry), checked by
    the specification's scatter: input pixel i of channel c and tap t of
    its filter [c, o % (F / groups)] add x * w to output position
    i * stride + t * dilation - pad_begin of channel o, o in c's group.
    With `filter_input` the filter is a graph input, rearranged by
    kernels instead of by the importer."""
    rank = len(size)
    cg, fg = c // groups, f // groups
    x = [f32(v) for v in ramp(n * c * math.prod(size), -2.0, 3.0)]
    w = [f32(((i * 5) % 13 - 6) / 8) for i in range(c * fg * k ** rank)]
    b = [f32(0.25 * i - 1.0) for i in range(f)]
    attrs = {"strides": [stride] * rank, "dilations": [dilation] * rank,
             "kernel_shape": [k] * rank}
    if groups > 1:
        attrs["group"] = groups
    if output_padding:
        attrs["output_padding"] = [output_padding] * rank
    full = [stride * (s - 1) + output_padding + dilation * (k - 1) + 1
            for s in size]
    if auto_pad:
        attrs["auto_pad"] = auto_pad
    if output_shape:
        attrs["output_shape"] = list(output_shape)
    if output_shape or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        target = output_shape or [s * stride for s in size]
        begin, end = [], []
        for full_d, out_d in zip(full, target):
            total = full_d - out_d
            small, large = total // 2, total - total // 2
            begin.append(small if auto_pad == "SAME_UPPER" else large)
            end.append(large if auto_pad == "SAME_UPPER" else small)
    else:
        begin, end = list(pads[:rank]), list(pads[rank:])
        attrs["pads"] = list(pads)
    out = [full_d - a - z for full_d, a, z in zip(full, begin, end)]
    inputs = ["x", "w"] + (["b"] if bias else [])
    w_shape = (c, fg) + (k,) * rank
    inits = [] if filter_input else [initializer("w", "f32", w_shape, w)]
    if bias:
        inits.append(initializer("b", "f32", (f,), b))
    graph_inputs = [("x", "f32", (n, c) + tuple(size))]
    if filter_input:
        graph_inputs.append(("w", "f32", w_shape))
    text = model(graph_inputs, ["y"],
                 [node("ConvTranspose", inputs, "y", **attrs)], inits)
    y = [0.0] * (n * f * math.prod(out))
    for b_ in range(n):
        for o in range(f):
            base = (b_ * f + o) * math.prod(out)
            for p in range(math.prod(out)):
                y[base + p] = b[o] if bias else 0.0
    taps = k ** rank
    for b_ in range(n):
        for ch in range(c):
            group = ch // cg
            for i in range(math.prod(size)):
                pos_in = unravel(size, i)
                xv = x[(b_ * c + ch) * math.prod(size) + i]
                for fo in range(fg):
                    o = group * fg + fo
                    for t in range(taps):
                        tap = unravel((k,) * rank, t)
                        pos = [pi * stride + ti * dilation - bg for pi, ti, bg
                               in zip(pos_in, tap, begin)]
                        if all(0 <= q < od for q, od in zip(pos, out)):
                            flat = 0
                            for q, od in zip(pos, out):
                                flat = flat * od + q
                            y[(b_ * f + o) * math.prod(out) + flat] += (
                                xv * w[(ch * fg + fo) * taps + t])
    feeds = {"x": ("f32", (n, c) + tuple(size), x)}
    if filter_input:
        feeds["w"] = ("f32", w_shape, w)
    return Case(text, feeds, {"y": ((n, f) + tuple(out), y)}, rtol=1e-5,
                atol=1e-5)


def pool_case(op, shape, kernel, strides, pads=(0, 0, 0, 0), dilations=(1, 1),
              ceil_mode=0, auto_pad=None, count_include_pad=0):
    """MaxPool or AveragePool (NCHW) by the definition: each output is the
    max or mean of its window's taps on the input (the mean over the taps
    on the padded input with count_include_pad). Output sizes by the
    specification's formula, ceil_mode's last window dropped where it
    would start past the input and the leading pad (PyTorch's rule)."""
    n, c, h, w = shape
    x = [f32(v) for v in ramp(math.prod(shape), -3.0, 4.0)]
    attrs = {"kernel_shape": list(kernel), "strides": list(strides)}
    if dilations != (1, 1):
        attrs["dilations"] = list(dilations)
    if ceil_mode:
        attrs["ceil_mode"] = 1
    if count_include_pad:
        attrs["count_include_pad"] = 1
    pads = list(pads)
    extent = [d * (k - 1) + 1 for d, k in zip(dilations, kernel)]
    if auto_pad:
        attrs["auto_pad"] = auto_pad
        for d, size in enumerate((h, w)):
            want = -(-size // strides[d])
            total = max(0, (want - 1) * strides[d] + extent[d] - size)
            small, large = total // 2, total - total // 2
            pads[d] = small if auto_pad == "SAME_UPPER" else large
            pads[d + 2] = large if auto_pad == "SAME_UPPER" else small
    else:
        attrs["pads"] = pads
    out = []
    for d, size in enumerate((h, w)):
        span = size + pads[d] + pads[d + 2] - extent[d]
        o = span // strides[d] + 1
        if ceil_mode and span % strides[d]:
            o += 1
            if (o - 1) * strides[d] >= size + pads[d]:
                o -= 1
        out.append(o)
    text = model([("x", "f32", shape)], ["y"], [node(op, ["x"], "y", **attrs)])
    y = []
    for b in range(n):
        for ch in range(c):
            for r in range(out[0]):
                for q in range(out[1]):
                    values, padded_taps = [], 0
                    for i in range(kernel[0]):
                        for j in range(kernel[1]):
                            rr = r * strides[0] - pads[0] + i * dilations[0]
                            qq = q * strides[1] - pads[1] + j * dilations[1]
                            if (-pads[0] <= rr < h + pads[2] and
                                    -pads[1] <= qq < w + pads[3]):
                                padded_taps += 1
                            if 0 <= rr < h and 0 <= qq < w:
                                values.append(
                                    x[((b * c + ch) * h + rr) * w + qq])
                    if op == "MaxPool":
                        y.append(max(values))
                    else:
                        y.append(sum(values) / (padded_taps if
                                                count_include_pad else
                                                len(values)))
    return Case(text, {"x": ("f32", shape, x)}, {"y": ((n, c) + tuple(out), y)},
                rtol=1e-5, atol=1e-5)


def pad_case(shape, pads, mode=None, value=None, axes=None, opset=18):
    """Pad, checked element by element against numpy.pad's rules: an
    output position o of an axis reads input o - before, or, outside the
    input, the constant, the edge, the mirror image or the wrapped
    element."""
    x = [f32(v) for v in ramp(math.prod(shape), -4.0, 5.0)]
    rank = len(shape)
    padded_axes = list(range(rank)) if axes is None else [
        a % rank for a in axes]
    before, after = [0] * rank, [0] * rank
    for i, a in enumerate(padded_axes):
        before[a], after[a] = pads[i], pads[i + len(padded_axes)]
    inits = [initializer("pads", "i64", (len(pads),), list(pads))]
    inputs = ["x", "pads"]
    if value is not None:
        inits.append(initializer("value", "f32", (), [value]))
        inputs.append("value")
    if axes is not None:
        if value is None:
            inputs.append("")
        inits.append(initializer("axes", "i64", (len(axes),), list(axes)))
        inputs.append("axes")
    attrs = {"mode": mode} if mode else {}
    text = model([("x", "f32", shape)], ["y"],
                 [node("Pad", inputs, "y", **attrs)], inits, opset=opset)
    out = tuple(n + b + a for n, b, a in zip(shape, before, after))

    def source(q, n):
        if 0 <= q < n:
            return q
        if mode in (None, "constant"):
            return None
        if mode == "edge":
            return min(max(q, 0), n - 1)
        if mode == "wrap":
            return q % n
        period = 2 * (n - 1)
        r = q % period
        return r if r < n else period - r

    y = []
    for i in range(math.prod(out)):
        coords = [source(c - b, n)
                  for c, b, n in zip(unravel(out, i), before, shape)]
        if None in coords:
            y.append(0.0 if value is None else value)
        else:
            flat = 0
            for c, n in zip(coords, shape):
                flat = flat * n + c
            y.append(x[flat])
    return Case(text, {"x": ("f32", shape, x)}, {"y": (out, y)})


def tile_case(shape, repeats):
    x = [f32(v) for v in ramp(math.prod(shape), -1.0, 2.0)]
    text = model([("x", "f32", shape)], ["y"],
                 [node("Tile", ["x", "r"], "y")],
                 [initializer("r", "i64", (len(repeats),), list(repeats))])
    out = tuple(n * r for n, r in zip(shape, repeats))
    y = []
    for i in range(math.prod(out)):
        flat = 0
        for c, n in zip(unravel(out, i), shape):
            flat = flat * n + c % n
        y.append(x[flat])
    return Case(text, {"x": ("f32", shape, x)}, {"y": (out, y)})


# The ONNX operator documentation's DepthToSpace example: x is [1, 8, 2, 3]
# holding 9 c + 3 h + w, and its DCR and CRD results.
D2S_X = [9.0 * c + 3 * h + w for c in range(8) for h in range(2)
         for w in range(3)]
D2S_DCR = [0, 18, 1, 19, 2, 20, 36, 54, 37, 55, 38, 56, 3, 21, 4, 22, 5, 23,
           39, 57, 40, 58, 41, 59, 9, 27, 10, 28, 11, 29, 45, 63, 46, 64, 47,
           65, 12, 30, 13, 31, 14, 32, 48, 66, 49, 67, 50, 68]
D2S_CRD = [0, 9, 1, 10, 2, 11, 18, 27, 19, 28, 20, 29, 3, 12, 4, 13, 5, 14,
           21, 30, 22, 31, 23, 32, 36, 45, 37, 46, 38, 47, 54, 63, 55, 64, 56,
           65, 39, 48, 40, 49, 41, 50, 57, 66, 58, 67, 59, 68]


def depth_case(op, x_shape, x, y_shape, y, **attrs):
    text = model([("x", "f32", x_shape)], ["y"],
                 [node(op, ["x"], "y", blocksize=2, **attrs)])
    return Case(text, {"x": ("f32", x_shape, x)},
                {"y": (y_shape, [float(v) for v in y])})


def resize_case(x_shape, x, y_shape, y, scales=None, sizes=None, opset=13,
                **attrs):
    """Resize against the expected outputs of the ONNX backend tests of the
    same name (their inputs and results, as the operator's tests give
    them)."""
    inits = [initializer("roi", "f32", (0,), [])]
    inputs = ["x", "roi"]
    if scales is not None:
        inits.append(initializer("scales", "f32", (len(scales),), scales))
        inputs.append("scales")
    else:
        inits.append(initializer("sizes", "i64", (len(sizes),), sizes))
        inputs += ["", "sizes"]
    text = model([("x", "f32", x_shape)], ["y"],
                 [node("Resize", inputs, "y", **attrs)], inits, opset=opset)
    return Case(text, {"x": ("f32", x_shape, [float(v) for v in x])},
                {"y": (y_shape, [float(v) for v in y])}, rtol=1e-6,
                atol=1e-6)


RESIZE_4X4 = list(range(1, 17))


def einsum_case(equation, shapes):
    """Einsum, checked by its definition: each output element the sum,
    over the labels the output leaves out, of the product of the inputs'
    elements at those labels (NumPy's rules: "..." for leading axes, an
    implicit output of the letters that appear once, in order)."""
    left, _, right = equation.replace(" ", "").partition("->")
    terms = left.split(",")
    rank_of_dots = max(len(shape) - len(t.replace("...", ""))
                       for t, shape in zip(terms, shapes))
    dots = "".join(chr(ord("0") + d) for d in range(rank_of_dots))

    def spell(term, rank):
        if "..." not in term:
            return term
        cover = rank - len(term.replace("...", ""))
        return term.replace("...", dots[rank_of_dots - cover:])
    labels = [spell(t, len(shape)) for t, shape in zip(terms, shapes)]
    if "->" in equation:
        out = spell(right, rank_of_dots + len(right.replace("...", "")))
    else:
        letters = "".join(labels)
        out = dots + "".join(sorted(c for c in set(letters)
                                    if c.isalpha() and letters.count(c) == 1))
    size = {}
    for term, shape in zip(labels, shapes):
        size.update(zip(term, shape))
    values = [[f32(v) for v in ramp(math.prod(shape), -1.5 - i, 2.0 + i)]
              for i, shape in enumerate(shapes)]
    summed = sorted(set("".join(labels)) - set(out))
    out_shape = tuple(size[c] for c in out)
    y = []
    for o in range(math.prod(out_shape)):
        at = dict(zip(out, unravel(out_shape, o)))
        total = 0.0
        for s_index in range(math.prod(size[c] for c in summed)):
            at.update(zip(summed, unravel(tuple(size[c] for c in summed),
                                          s_index)))
            product = 1.0
            for term, shape, vals in zip(labels, shapes, values):
                flat = 0
                for c, extent in zip(term, shape):
                    flat = flat * extent + at[c]
                product *= vals[flat]
            total += product
        y.append(total)
    names = ["x%d" % i for i in range(len(shapes))]
    text = model([(n, "f32", shape) for n, shape in zip(names, shapes)],
                 ["y"], [node("Einsum", names, "y", equation=equation)],
                 opset=17)
    return Case(text, {n: ("f32", shape, v)
                       for n, shape, v in zip(names, shapes, values)},
                {"y": (out_shape, y)}, rtol=1e-5, atol=1e-5)


def rotary_case(seq=6, dim=8):
    """A rotary position embedding as Llama's exports compute it at run
    time: positions (an input) times the inverse frequencies, the angles
    twice over, their cosines and sines, and x cos + rotate_half(x) sin
    with rotate_half(x) = [-x2, x1]."""
    half = dim // 2
    inv_freq = [f32(10000.0 ** (-2 * i / dim)) for i in range(half)]
    pos = [float(p) for p in range(seq)]
    x = [f32(v) for v in ramp(seq * dim, -2.0, 3.0)]
    nodes = [
        node("Unsqueeze", ["pos", "one"], "pos2"),
        node("Mul", ["pos2", "inv_freq"], "freqs"),
        node("Concat", ["freqs", "freqs"], "angles", axis=-1),
        node("Cos", ["angles"], "cos"),
        node("Sin", ["angles"], "sin"),
        node("Slice", ["x", "zero", "halfway", "last"], "x1"),
        node("Slice", ["x", "halfway", "end", "last"], "x2"),
        node("Neg", ["x2"], "neg"),
        node("Concat", ["neg", "x1"], "rotated", axis=-1),
        node("Mul", ["x", "cos"], "a"),
        node("Mul", ["rotated", "sin"], "b"),
        node("Add", ["a", "b"], "y")]
    inits = [initializer("inv_freq", "f32", (half,), inv_freq),
             initializer("one", "i64", (1,), [1]),
             initializer("zero", "i64", (1,), [0]),
             initializer("halfway", "i64", (1,), [half]),
             initializer("end", "i64", (1,), [dim]),
             initializer("last", "i64", (1,), [-1])]
    text = model([("pos", "f32", (seq,)), ("x", "f32", (seq, dim))], ["y"],
                 nodes, inits)
    y = []
    for s in range(seq):
        row = x[s * dim:(s + 1) * dim]
        for d in range(dim):
            angle = f32(pos[s] * inv_freq[d % half])
            other = -row[d + half] if d < half else row[d - half]
            y.append(row[d] * math.cos(angle) + other * math.sin(angle))
    return Case(text, {"pos": ("f32", (seq,), pos),
                       "x": ("f32", (seq, dim), x)},
                {"y": ((seq, dim), y)}, rtol=1e-5, atol=2e-6)


CASES = {
    "HardSigmoid": lambda: unary_case(
        "HardSigmoid", lambda v: hard_sigmoid(v, f32(0.3), f32(0.4)),
        alpha=0.3, beta=0.4),
    "HardSigmoid-defaults": lambda: unary_case(
        "HardSigmoid", lambda v: hard_sigmoid(v, f32(0.2), 0.5)),
    "HardSwish": lambda: unary_case(
        "HardSwish", lambda v: v * hard_sigmoid(v, 1 / 6, 0.5), opset=14),
    "LeakyRelu": lambda: unary_case(
        "LeakyRelu", lambda v: v if v >= 0 else f32(0.1) * v, alpha=0.1),
    "LeakyRelu-defaults": lambda: unary_case(
        "LeakyRelu", lambda v: v if v >= 0 else f32(0.01) * v),
    "PRelu": prelu_case,
    "Elu": lambda: unary_case(
        "Elu", lambda v: v if v >= 0 else f32(0.7) * math.expm1(v),
        alpha=0.7, atol=1e-6),
    "Selu": lambda: unary_case(
        "Selu",
        lambda v: SELU_GAMMA * (v if v > 0 else SELU_ALPHA * math.expm1(v)),
        atol=1e-6),
    "Celu": lambda: unary_case(
        "Celu",
        lambda v: max(0.0, v) + min(0.0, f32(1.5) * math.expm1(v / f32(1.5))),
        alpha=1.5, atol=1e-6),
    "Softplus": lambda: unary_case("Softplus", softplus, low=-100.0,
                                   high=100.0),
    "Softsign": lambda: unary_case("Softsign", lambda v: v / (1 + abs(v))),
    "Mish": lambda: unary_case(
        "Mish", lambda v: v * math.tanh(softplus(v)), low=-30.0, high=30.0,
        opset=18),
    "ThresholdedRelu": lambda: unary_case(
        "ThresholdedRelu", lambda v: v if v > f32(1.25) else 0.0,
        alpha=1.25),
    "Sign": sign_case,
    "Sin": lambda: unary_case("Sin", math.sin, low=-20.0, high=20.0,
                              atol=1e-6),
    "Cos": lambda: unary_case("Cos", math.cos, low=-20.0, high=20.0,
                              atol=1e-6),
    "rotary-at-run-time": rotary_case,
    "ReduceMin": lambda: reduce_case("ReduceMin", min),
    "ReduceMin-opset13-axes02-flat": lambda: reduce_case(
        "ReduceMin", min, axes=(0, 2), keepdims=0, opset=13),
    "ReduceSumSquare": lambda: reduce_case(
        "ReduceSumSquare", lambda v: sum(x * x for x in v), axes=(2,)),
    "ReduceL1": lambda: reduce_case(
        "ReduceL1", lambda v: sum(abs(x) for x in v), axes=(0, 1),
        keepdims=0),
    "ReduceL2": lambda: reduce_case(
        "ReduceL2", lambda v: math.sqrt(sum(x * x for x in v))),
    "ReduceL2-noop": lambda: reduce_case("ReduceL2", None, noop=1),
    "ReduceLogSum": lambda: reduce_case(
        "ReduceLogSum", lambda v: math.log(sum(v)), low=0.5, high=9.0),
    "ReduceLogSumExp": lambda: reduce_case(
        "ReduceLogSumExp", logsumexp, axes=(2,), keepdims=0, low=-200.0,
        high=300.0),
    "InstanceNormalization": lambda: group_norm_case(
        "InstanceNormalization", (2, 3, 5, 7), 3, [0.5, -1.25, 2.0],
        [0.1, 0.0, -3.0], 17, eps=1e-3),
    "InstanceNormalization-1d": lambda: group_norm_case(
        "InstanceNormalization", (3, 4, 10), 4, [1.0, 2.0, 3.0, 4.0],
        [0.0, 0.5, 1.0, 1.5], 17),
    "GroupNormalization-opset21": lambda: group_norm_case(
        "GroupNormalization", (2, 6, 3, 5), 3,
        [0.5, 1.0, 1.5, 2.0, -1.0, 0.25], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 21,
        num_groups=3),
    "GroupNormalization-opset18": lambda: group_norm_case(
        "GroupNormalization", (2, 6, 3, 5), 2, [0.5, -2.0], [1.0, -1.0], 18,
        eps=1e-2, num_groups=2),
    "GroupNormalization-opset18-inputs": lambda: group_norm_case(
        "GroupNormalization", (2, 6, 3, 5), 3, [0.5, -2.0, 3.0],
        [1.0, -1.0, 0.0], 18, inputs=True, num_groups=3),
    "Conv-1d": lambda: conv1d_case(2, 3, 17, 4, 3, pads=(1, 2)),
    "Conv-1d-strided-dilated-grouped": lambda: conv1d_case(
        1, 4, 20, 6, 3, stride=2, dilation=2, pads=(2, 1), groups=2,
        bias=False),
    "Conv-1d-same-upper": lambda: conv1d_case(
        2, 2, 9, 3, 4, stride=2, auto_pad="SAME_UPPER"),
    "Conv-depthwise-3x3-stride2": lambda: conv2d_case(
        2, 8, 9, 8, 3, stride=2, pad=1, groups=8),
    "Conv-depthwise-multiplier2": lambda: conv2d_case(
        1, 4, 7, 8, 3, pad=1, groups=4),
    "Conv-depthwise-7x7": lambda: conv2d_case(
        1, 6, 10, 6, 7, pad=3, groups=6),
    "Conv-grouped-4-channels-dilated": lambda: conv2d_case(
        1, 8, 9, 4, 3, pad=2, groups=2, dilation=2),
    # 3 x 3 taps over 16 channels a group: one GEMM per group.
    "Conv-grouped-16-channels-stride2": lambda: conv2d_case(
        2, 32, 7, 16, 3, stride=2, pad=1, groups=2),
    "ConvTranspose-stride2-pads": lambda: conv_transpose_case(
        2, 3, (4, 5), 4, 3, 2, (1, 1, 1, 1)),
    "ConvTranspose-output-padding-grouped": lambda: conv_transpose_case(
        1, 4, (3, 3), 6, 3, 2, (0, 1, 1, 0), groups=2, output_padding=1),
    "ConvTranspose-4x4-stride2": lambda: conv_transpose_case(
        1, 8, (5, 4), 3, 4, 2, (1, 1, 1, 1), bias=False),
    "ConvTranspose-dilated-same-upper": lambda: conv_transpose_case(
        1, 2, (4, 3), 2, 3, 2, None, dilation=2, auto_pad="SAME_UPPER"),
    "ConvTranspose-output-shape": lambda: conv_transpose_case(
        1, 2, (3, 4), 3, 3, 3, None, output_shape=(8, 11)),
    "ConvTranspose-1d-wide-pads": lambda: conv_transpose_case(
        2, 2, (6,), 3, 3, 1, (3, 2)),
    "ConvTranspose-filter-at-run-time": lambda: conv_transpose_case(
        1, 4, (3, 4), 4, 3, 2, (1, 0, 1, 1), groups=2, filter_input=True),
    # Split by output phase (a constant filter, no dilation): 5 taps over 3
    # phases (one tap of zeros), output_padding past the last tap, a pad
    # cropping the end; pads beyond the kernel's reach with groups; a 1-D
    # stride of 4; 9216 weights (past the inline limit) with 3 taps over 2
    # phases.
    "ConvTranspose-stride3-k5-output-padding": lambda: conv_transpose_case(
        2, 3, (4, 5), 4, 5, 3, (2, 1, 0, 3), output_padding=2),
    "ConvTranspose-grouped-pads-beyond-reach": lambda: conv_transpose_case(
        1, 6, (5, 3), 9, 3, 2, (4, 0, 1, 5), groups=3),
    "ConvTranspose-1d-stride4": lambda: conv_transpose_case(
        1, 2, (7,), 3, 8, 4, (2, 2)),
    "ConvTranspose-wide-stride2": lambda: conv_transpose_case(
        1, 64, (3, 3), 16, 3, 2, (1, 1, 1, 1)),
    # A stride past the kernel (phases without a tap) keeps the dilated
    # input.
    "ConvTranspose-stride-past-kernel": lambda: conv_transpose_case(
        1, 2, (3, 3), 2, 2, 3, (0, 1, 1, 0)),
    "Einsum-attention-scores": lambda: einsum_case(
        "bhqd,bhkd->bhqk", [(2, 3, 5, 4), (2, 3, 6, 4)]),
    "Einsum-batched-matmul": lambda: einsum_case(
        "bij,bjk->bik", [(3, 4, 5), (3, 5, 2)]),
    "Einsum-transpose": lambda: einsum_case("ij->ji", [(3, 5)]),
    "Einsum-dot": lambda: einsum_case("i,i->", [(7,), (7,)]),
    "Einsum-sum-axis": lambda: einsum_case("ijk->j", [(2, 3, 4)]),
    "Einsum-ellipsis": lambda: einsum_case(
        "...ij,...jk->...ik", [(2, 3, 4, 5), (3, 5, 2)]),
    "Einsum-implicit-output": lambda: einsum_case("ij,jk", [(3, 4), (4, 2)]),
    "Einsum-three-operands": lambda: einsum_case(
        "abc,cd,de->abe", [(2, 3, 4), (4, 5), (5, 3)]),
    "Einsum-bilinear": lambda: einsum_case(
        "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    "Einsum-outer-product-reordered": lambda: einsum_case(
        "i,j,k->kji", [(2,), (3,), (4,)]),
    "Einsum-transposed-lhs": lambda: einsum_case(
        "ki,kj->ij", [(5, 3), (5, 4)]),
    "MaxPool-ceil-mode": lambda: pool_case(
        "MaxPool", (1, 2, 7, 8), (3, 3), (2, 2), ceil_mode=1),
    "MaxPool-ceil-mode-padded": lambda: pool_case(
        "MaxPool", (2, 1, 6, 6), (3, 3), (2, 2), pads=(1, 1, 1, 1),
        ceil_mode=1),
    "MaxPool-dilated": lambda: pool_case(
        "MaxPool", (1, 2, 9, 7), (2, 3), (1, 2), dilations=(2, 2)),
    "MaxPool-same-upper": lambda: pool_case(
        "MaxPool", (1, 1, 7, 6), (3, 2), (2, 2), auto_pad="SAME_UPPER"),
    "AveragePool-ceil-mode": lambda: pool_case(
        "AveragePool", (1, 2, 7, 5), (2, 3), (2, 2), pads=(0, 1, 0, 1),
        ceil_mode=1),
    "AveragePool-include-pad-dilated": lambda: pool_case(
        "AveragePool", (1, 1, 8, 8), (3, 3), (2, 1), pads=(1, 2, 1, 0),
        dilations=(1, 2), count_include_pad=1),
    "Pad-constant-value": lambda: pad_case((3, 4), [1, 2, 0, 3], value=1.5),
    "Pad-nchw-zeros": lambda: pad_case((1, 2, 3, 3), [0, 0, 1, 2, 0, 0, 2, 1],
                                       opset=13),
    "Pad-crop": lambda: pad_case((4, 5), [-1, 2, 1, -2]),
    "Pad-edge": lambda: pad_case((2, 3, 4), [0, 2, 1, 0, 1, 3], mode="edge"),
    "Pad-reflect": lambda: pad_case((3, 4), [2, 3, 2, 5], mode="reflect"),
    "Pad-wrap-axes": lambda: pad_case((2, 3, 4), [2, 5], mode="wrap",
                                      axes=[-1], opset=19),
    "Tile": lambda: tile_case((2, 3), (3, 2)),
    "Tile-3d": lambda: tile_case((2, 1, 3), (1, 4, 2)),
    "DepthToSpace-DCR": lambda: depth_case(
        "DepthToSpace", (1, 8, 2, 3), D2S_X, (1, 2, 4, 6), D2S_DCR),
    "DepthToSpace-CRD": lambda: depth_case(
        "DepthToSpace", (1, 8, 2, 3), D2S_X, (1, 2, 4, 6), D2S_CRD,
        mode="CRD"),
    "SpaceToDepth": lambda: depth_case(
        "SpaceToDepth", (1, 2, 4, 6), D2S_DCR, (1, 8, 2, 3), D2S_X),
    "Resize-upsample-scales-nearest": lambda: resize_case(
        (1, 1, 2, 2), [1, 2, 3, 4], (1, 1, 4, 6),
        [1, 1, 1, 2, 2, 2] * 2 + [3, 3, 3, 4, 4, 4] * 2,
        scales=[1.0, 1.0, 2.0, 3.0], mode="nearest"),
    "Resize-downsample-scales-nearest": lambda: resize_case(
        (1, 1, 2, 4), range(1, 9), (1, 1, 1, 2), [1, 3],
        scales=[1.0, 1.0, 0.6, 0.6], mode="nearest"),
    "Resize-upsample-sizes-nearest": lambda: resize_case(
        (1, 1, 2, 2), [1, 2, 3, 4], (1, 1, 7, 8),
        [1, 1, 1, 1, 2, 2, 2, 2] * 4 + [3, 3, 3, 3, 4, 4, 4, 4] * 3,
        sizes=[1, 1, 7, 8], mode="nearest"),
    "Resize-upsample-sizes-nearest-ceil-half-pixel": lambda: resize_case(
        (1, 1, 4, 4), RESIZE_4X4, (1, 1, 8, 8),
        sum(([r, r + 1, r + 1, r + 2, r + 2, r + 3, r + 3, r + 3]
             for r in (1, 5, 5, 9, 9, 13, 13, 13)), []),
        sizes=[1, 1, 8, 8], mode="nearest", nearest_mode="ceil"),
    "Resize-upsample-sizes-nearest-floor-align-corners": lambda: resize_case(
        (1, 1, 4, 4), RESIZE_4X4, (1, 1, 8, 8),
        sum(([r, r, r, r + 1, r + 1, r + 2, r + 2, r + 3]
             for r in (1, 1, 1, 5, 5, 9, 9, 13)), []),
        sizes=[1, 1, 8, 8], mode="nearest", nearest_mode="floor",
        coordinate_transformation_mode="align_corners"),
    "Resize-upsample-sizes-nearest-round-prefer-ceil-asymmetric":
        lambda: resize_case(
            (1, 1, 4, 4), RESIZE_4X4, (1, 1, 8, 8),
            sum(([r, r + 1, r + 1, r + 2, r + 2, r + 3, r + 3, r + 3]
                 for r in (1, 5, 5, 9, 9, 13, 13, 13)), []),
            sizes=[1, 1, 8, 8], mode="nearest",
            nearest_mode="round_prefer_ceil",
            coordinate_transformation_mode="asymmetric"),
    "Resize-upsample-scales-linear": lambda: resize_case(
        (1, 1, 2, 2), [1, 2, 3, 4], (1, 1, 4, 4),
        [1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5, 2.5, 2.75, 3.25, 3.5,
         3, 3.25, 3.75, 4], scales=[1.0, 1.0, 2.0, 2.0], mode="linear"),
    "Resize-upsample-scales-linear-align-corners": lambda: resize_case(
        (1, 1, 2, 2), [1, 2, 3, 4], (1, 1, 4, 4),
        [1, 4 / 3, 5 / 3, 2, 5 / 3, 2, 7 / 3, 8 / 3, 7 / 3, 8 / 3, 3,
         10 / 3, 3, 10 / 3, 11 / 3, 4], scales=[1.0, 1.0, 2.0, 2.0],
        mode="linear", coordinate_transformation_mode="align_corners"),
    "Resize-downsample-scales-linear": lambda: resize_case(
        (1, 1, 2, 4), range(1, 9), (1, 1, 1, 2), [8 / 3, 13 / 3],
        scales=[1.0, 1.0, 0.6, 0.6], mode="linear"),
    "Resize-downsample-scales-linear-align-corners": lambda: resize_case(
        (1, 1, 2, 4), range(1, 9), (1, 1, 1, 2), [1, 22 / 7],
        scales=[1.0, 1.0, 0.6, 0.6], mode="linear",
        coordinate_transformation_mode="align_corners"),
    "Resize-opset18-axes": lambda: resize_case(
        (1, 1, 2, 2), [1, 2, 3, 4], (1, 1, 4, 6),
        [1, 1, 1, 2, 2, 2] * 2 + [3, 3, 3, 4, 4, 4] * 2,
        scales=[2.0, 3.0], mode="nearest", axes=[2, 3], opset=18),
}


# --------------------------------------------------------------- runs ----

def run(name, case, directory):
    base = os.path.join(directory, name)
    with open(base + ".onnxtxt", "w") as f:
        f.write(case.text)
    command = ["opt-fuse", base + ".onnxtxt", "--check-on-host",
               "--chip=sm_80", "--save-outputs", base + ".out"]
    for input_name, (dtype, shape, values) in case.inputs.items():
        path = "%s.%s.npy" % (base, input_name)
        save_npy(path, dtype, shape, values)
        command += ["--inputs", "%s=%s" % (input_name, path)]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        return "FAIL: opt-fuse exited %d\n%s%s" % (
            result.returncode, result.stdout, result.stderr)
    worst = 0.0
    for output, (shape, want) in case.expected.items():
        got_shape, got = load_npy(os.path.join(base + ".out", output + ".npy"))
        if tuple(got_shape) != tuple(shape):
            return "FAIL: %s has shape %s, not %s" % (output, got_shape, shape)
        for i, (g, w) in enumerate(zip(got, want)):
            if math.isnan(w) and math.isnan(g):
                continue
            error = abs(g - w)
            if not error <= case.atol + case.rtol * abs(w):
                return "FAIL: %s[%d] = %r, the specification gives %r" % (
                    output, i, g, w)
            worst = max(worst, error)
    return "ok (max error %.1e)" % worst


def main():
    directory = sys.argv[1]
    os.makedirs(directory, exist_ok=True)
    names = sys.argv[2:] or list(CASES)
    failed = False
    for name in names:
        verdict = run(name, CASES[name](), directory)
        failed |= not verdict.startswith("ok")
        print("%s: %s" % (name, verdict))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
