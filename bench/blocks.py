#!/usr/bin/env python3
"""Whole transformer and CNN blocks, written once for opfuse and for PyTorch.

Each block is built by one function that emits the fuse IR (written to
examples/blocks/ by `python3 bench/blocks.py --write`) and returns the same
computation in PyTorch, so block_compare.py times both on identical graphs.
The IR is written the way frontends write these blocks: QKV in one GEMM,
heads split with slice + reshape + transpose, K transposed for QK^T,
attention unfused (matmul, softmax, matmul), heads merged with transpose +
reshape, bf16 throughout.

    python3 bench/blocks.py --write      regenerate examples/blocks/*.mlir
                                         and test/GPU/Inputs/blocks.mlir
    python3 bench/blocks.py --check      exit 1 if they are out of date
"""
import argparse
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "examples", "blocks")


def ttype(shape, dtype="bf16"):
    return "tensor<" + "x".join(str(d) for d in shape) + ("x" if shape else "") + dtype + ">"


class Builder:
    """Emits one func.func in fuse IR, tracking each value's shape."""

    def __init__(self, name, comment, dtype="bf16"):
        self.name, self.comment, self.dtype = name, comment, dtype
        self.args, self.lines, self.shapes, self.count = [], [], {}, 0

    def arg(self, name, shape, dtype=None):
        dtype = dtype or self.dtype
        value = "%" + name
        self.args.append((value, shape, dtype))
        self.shapes[value] = (shape, dtype)
        return value

    def _new(self, shape, dtype=None):
        dtype = dtype or self.dtype
        value = f"%{self.count}"
        self.count += 1
        self.shapes[value] = (shape, dtype)
        return value

    def t(self, value):
        return ttype(*self.shapes[value])

    def unary(self, op, x, attrs=""):
        shape, dtype = self.shapes[x]
        r = self._new(shape, dtype)
        self.lines.append(f"{r} = fuse.{op} {x}{attrs} : {self.t(x)}")
        return r

    def binary(self, op, a, b):
        sa, sb = self.shapes[a][0], self.shapes[b][0]
        rank = max(len(sa), len(sb))
        pa = [1] * (rank - len(sa)) + list(sa)
        pb = [1] * (rank - len(sb)) + list(sb)
        shape = [max(x, y) for x, y in zip(pa, pb)]
        r = self._new(shape, self.shapes[a][1])
        self.lines.append(f"{r} = fuse.{op} {a}, {b} : ({self.t(a)}, {self.t(b)}) -> {self.t(r)}")
        return r

    def scalar(self, value):
        r = self._new([])
        self.lines.append(f"{r} = fuse.constant dense<{value!r}> : tensor<{self.dtype}>")
        return r

    def matmul(self, a, b, transpose_b=False):
        sa, sb = self.shapes[a][0], self.shapes[b][0]
        n = sb[-2] if transpose_b else sb[-1]
        batch = sa[:-2] if len(sa) >= len(sb) else sb[:-2]
        r = self._new(list(batch) + [sa[-2], n])
        flag = " transpose_b" if transpose_b else ""
        self.lines.append(f"{r} = fuse.matmul {a}, {b}{flag} : ({self.t(a)}, {self.t(b)}) -> {self.t(r)}")
        return r

    def linear(self, x, w, b=None):
        y = self.matmul(x, w)
        return self.binary("add", y, b) if b else y

    def reshape(self, x, shape):
        r = self._new(shape, self.shapes[x][1])
        self.lines.append(f"{r} = fuse.reshape {x} : {self.t(x)} -> {self.t(r)}")
        return r

    def transpose(self, x, perm):
        shape = self.shapes[x][0]
        r = self._new([shape[p] for p in perm], self.shapes[x][1])
        self.lines.append(f"{r} = fuse.transpose {x} permutation = {list(perm)} : {self.t(x)} -> {self.t(r)}")
        return r

    def slice(self, x, offsets, sizes):
        r = self._new(sizes, self.shapes[x][1])
        strides = [1] * len(sizes)
        self.lines.append(f"{r} = fuse.slice {x} offsets = {offsets} sizes = {sizes} strides = {strides} : {self.t(x)} -> {self.t(r)}")
        return r

    def concat(self, xs, axis):
        shape = list(self.shapes[xs[0]][0])
        shape[axis] = sum(self.shapes[x][0][axis] for x in xs)
        r = self._new(shape, self.shapes[xs[0]][1])
        types = ", ".join(self.t(x) for x in xs)
        self.lines.append(f"{r} = fuse.concat {', '.join(xs)} axis = {axis} : ({types}) -> {self.t(r)}")
        return r

    def softmax(self, x, axis):
        return self.unary("softmax", x, f" axis = {axis}")

    def layer_norm(self, x, g, b):
        axis = len(self.shapes[x][0]) - 1
        r = self._new(*self.shapes[x])
        self.lines.append(f"{r} = fuse.layer_norm {x} scale {g} bias {b} axis = {axis} epsilon = 1.0e-05 : ({self.t(x)}, {self.t(g)}, {self.t(b)}) -> {self.t(r)}")
        return r

    def rms_norm(self, x, g):
        axis = len(self.shapes[x][0]) - 1
        r = self._new(*self.shapes[x])
        self.lines.append(f"{r} = fuse.rms_norm {x} scale {g} axis = {axis} epsilon = 1.0e-06 : ({self.t(x)}, {self.t(g)}) -> {self.t(r)}")
        return r

    def conv(self, x, w, stride, pad):
        n, h, wd, _ = self.shapes[x][0]
        f, kh, kw, _ = self.shapes[w][0]
        oh = (h + 2 * pad - kh) // stride + 1
        ow = (wd + 2 * pad - kw) // stride + 1
        r = self._new([n, oh, ow, f])
        self.lines.append(f"{r} = fuse.conv2d {x}, {w} strides = [{stride}, {stride}] padding = [{pad}, {pad}, {pad}, {pad}] dilation = [1, 1] groups = 1 : ({self.t(x)}, {self.t(w)}) -> {self.t(r)}")
        return r

    def text(self, result):
        args = ", ".join(f"{v}: {ttype(s, d)}" for v, s, d in self.args)
        body = "\n".join("  " + line for line in self.lines)
        comment = "\n".join("// " + line if line else "//" for line in self.comment.splitlines())
        return (f"{comment}\n// Generated by bench/blocks.py; edit that file, not this one.\n"
                f"func.func @{self.name}({args}) -> {self.t(result)} {{\n{body}\n"
                f"  return {result} : {self.t(result)}\n}}\n")


def attention(b, q, k, v, mask, heads_dim):
    """Unfused attention over [B, H, S, D] q and [B, H, L, D] k, v."""
    # K^T as frontends write it (k.transpose(-2, -1)); matmul folds it.
    s = b.matmul(q, b.transpose(k, [0, 1, 3, 2]))
    s = b.binary("mul", s, b.scalar(1.0 / math.sqrt(heads_dim)))
    if mask is not None:
        s = b.binary("add", s, mask)
    p = b.softmax(s, 3)
    return b.matmul(p, v)


def split_heads(b, x, batch, seq, heads, dim):
    return b.transpose(b.reshape(x, [batch, seq, heads, dim]), [0, 2, 1, 3])


def merge_heads(b, o, batch, seq, heads, dim):
    return b.reshape(b.transpose(o, [0, 2, 1, 3]), [batch, seq, heads * dim])


def gpt_block(name, batch, seq, d, heads, ffn, dtype="bf16"):
    """Pre-LN GPT block: x + attn(ln1(x)); then + mlp(ln2(.))."""
    dim = d // heads
    b = Builder(name, f"A pre-LN GPT block in {dtype}: {batch} x {seq} tokens, d_model {d}, {heads} heads\n"
                      f"of {dim}, MLP {ffn} (GELU tanh), causal additive mask.", dtype)
    x = b.arg("x", [batch, seq, d])
    mask = b.arg("mask", [seq, seq])
    g1, b1 = b.arg("ln1_g", [d]), b.arg("ln1_b", [d])
    wqkv, bqkv = b.arg("w_qkv", [d, 3 * d]), b.arg("b_qkv", [3 * d])
    wo, bo = b.arg("w_o", [d, d]), b.arg("b_o", [d])
    g2, b2 = b.arg("ln2_g", [d]), b.arg("ln2_b", [d])
    w1, bf1 = b.arg("w_1", [d, ffn]), b.arg("b_1", [ffn])
    w2, bf2 = b.arg("w_2", [ffn, d]), b.arg("b_2", [d])
    h = b.layer_norm(x, g1, b1)
    qkv = b.linear(h, wqkv, bqkv)
    q, k, v = (split_heads(b, b.slice(qkv, [0, 0, i * d], [batch, seq, d]), batch, seq, heads, dim)
               for i in range(3))
    o = attention(b, q, k, v, mask, dim)
    x1 = b.binary("add", x, b.linear(merge_heads(b, o, batch, seq, heads, dim), wo, bo))
    f = b.unary("gelu", b.linear(b.layer_norm(x1, g2, b2), w1, bf1), " approximate = tanh")
    y = b.binary("add", x1, b.linear(f, w2, bf2))
    return b, y


def rotary(b, x, cos, sin, dim):
    """x * cos + concat(-x2, x1) * sin over the last dimension."""
    shape = b.shapes[x][0]
    half = dim // 2
    x1 = b.slice(x, [0] * len(shape), shape[:-1] + [half])
    x2 = b.slice(x, [0] * (len(shape) - 1) + [half], shape[:-1] + [half])
    r = b.concat([b.unary("neg", x2), x1], len(shape) - 1)
    return b.binary("add", b.binary("mul", x, cos), b.binary("mul", r, sin))


def llama_block(name, batch, seq, d, heads, ffn, past=0, dtype="bf16"):
    """Llama block: RMSNorm, QKV, rotary, causal attention, SwiGLU.

    With past > 0 it is a decode step: seq new tokens attend to a K/V cache
    of `past` positions plus themselves (concat), without a mask.
    """
    dim = d // heads
    kind = (f"a decode step: {batch} sequences x {seq} token, a K/V cache of {past}"
            if past else f"prefill: {batch} x {seq} tokens, causal additive mask")
    b = Builder(name, f"A Llama-style block in {dtype}, {kind};\n"
                      f"d_model {d}, {heads} heads of {dim}, SwiGLU MLP {ffn}, rotary embedding\n"
                      f"written with slice/concat/neg/mul/add.", dtype)
    x = b.arg("x", [batch, seq, d])
    cos, sin = b.arg("cos", [seq, 1, dim]), b.arg("sin", [seq, 1, dim])
    mask = None if past else b.arg("mask", [seq, seq])
    if past:
        kc, vc = b.arg("k_cache", [batch, heads, past, dim]), b.arg("v_cache", [batch, heads, past, dim])
    g1 = b.arg("attn_norm", [d])
    wqkv, wo = b.arg("w_qkv", [d, 3 * d]), b.arg("w_o", [d, d])
    g2 = b.arg("mlp_norm", [d])
    wg, wu, wd = b.arg("w_gate", [d, ffn]), b.arg("w_up", [d, ffn]), b.arg("w_down", [ffn, d])
    h = b.rms_norm(x, g1)
    qkv = b.matmul(h, wqkv)
    q, k, v = (b.reshape(b.slice(qkv, [0, 0, i * d], [batch, seq, d]), [batch, seq, heads, dim])
               for i in range(3))
    q = b.transpose(rotary(b, q, cos, sin, dim), [0, 2, 1, 3])
    k = b.transpose(rotary(b, k, cos, sin, dim), [0, 2, 1, 3])
    v = b.transpose(v, [0, 2, 1, 3])
    if past:
        k, v = b.concat([kc, k], 2), b.concat([vc, v], 2)
    o = attention(b, q, k, v, mask, dim)
    x1 = b.binary("add", x, b.matmul(merge_heads(b, o, batch, seq, heads, dim), wo))
    h2 = b.rms_norm(x1, g2)
    gate, up = b.matmul(h2, wg), b.matmul(h2, wu)
    y = b.binary("add", x1, b.matmul(b.binary("mul", b.unary("silu", gate), up), wd))
    return b, y


def resnet_bottleneck(name, n, hw, c, mid):
    """NHWC bottleneck: 1x1 -> 3x3 -> 1x1 convs, BN folded into biases,
    ReLU after each, residual add before the last ReLU."""
    b = Builder(name, f"A ResNet bottleneck block in bf16, NHWC: {n}x{hw}x{hw}x{c} -> 1x1 {mid} ->\n"
                      f"3x3 {mid} -> 1x1 {c}, inference batch norm folded into the biases,\n"
                      f"ReLU after each conv, the residual added before the last ReLU.")
    x = b.arg("x", [n, hw, hw, c])
    w1, b1 = b.arg("w_1", [mid, 1, 1, c]), b.arg("b_1", [mid])
    w2, b2 = b.arg("w_2", [mid, 3, 3, mid]), b.arg("b_2", [mid])
    w3, b3 = b.arg("w_3", [c, 1, 1, mid]), b.arg("b_3", [c])
    h = b.unary("relu", b.binary("add", b.conv(x, w1, 1, 0), b1))
    h = b.unary("relu", b.binary("add", b.conv(h, w2, 1, 1), b2))
    y = b.unary("relu", b.binary("add", b.binary("add", b.conv(h, w3, 1, 0), b3), x))
    return b, y


def attention_only(name, batch, seq, heads, dim, past=0):
    """The unfused attention of a block on its own: q, k, v in head layout."""
    b = Builder(name, f"The attention of a block alone: {batch} x {heads} heads, {seq} queries of\n"
                      f"{dim}, {past or seq} keys{'' if past else ', causal additive mask'}.")
    keys = past or seq
    q = b.arg("q", [batch, heads, seq, dim])
    k, v = b.arg("k", [batch, heads, keys, dim]), b.arg("v", [batch, heads, keys, dim])
    mask = None if past else b.arg("mask", [seq, seq])
    return b, attention(b, q, k, v, mask, dim)


BLOCKS = {
    "gpt_prefill": lambda: gpt_block("gpt_prefill", 2, 1024, 1024, 16, 4096),
    "gpt_decode": lambda: gpt_block("gpt_decode", 8, 1, 1024, 16, 4096),
    "llama_prefill": lambda: llama_block("llama_prefill", 1, 2048, 2048, 16, 5632),
    "llama_decode": lambda: llama_block("llama_decode", 4, 1, 2048, 16, 5632, past=1024),
    "resnet_bottleneck": lambda: resnet_bottleneck("resnet_bottleneck", 8, 56, 256, 64),
}

# The attention part of the prefill blocks on its own (bench/block_compare.py
# reports it separately, as attention stays unfused until its own emitter).
ATTENTION = {
    "gpt_prefill": lambda: attention_only("gpt_prefill_attention", 2, 1024, 16, 64),
    "llama_prefill": lambda: attention_only("llama_prefill_attention", 1, 2048, 16, 128),
}


# --- The same blocks in PyTorch (imported lazily: --write needs no torch).

def torch_attention(q, k, v, mask):
    import torch
    s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    if mask is not None:
        s = s + mask
    return torch.softmax(s, dim=-1) @ v


def torch_gpt(heads):
    import torch.nn.functional as F

    def block(x, mask, ln1_g, ln1_b, w_qkv, b_qkv, w_o, b_o, ln2_g, ln2_b,
              w_1, b_1, w_2, b_2):
        batch, seq, d = x.shape
        dim = d // heads
        h = F.layer_norm(x, (d,), ln1_g, ln1_b, 1e-5)
        qkv = h @ w_qkv + b_qkv
        q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(batch, seq, heads, dim)
                   .transpose(1, 2) for i in range(3))
        o = torch_attention(q, k, v, mask)
        x1 = x + (o.transpose(1, 2).reshape(batch, seq, d) @ w_o + b_o)
        f = F.gelu(F.layer_norm(x1, (d,), ln2_g, ln2_b, 1e-5) @ w_1 + b_1,
                   approximate="tanh")
        return x1 + (f @ w_2 + b_2)
    return block


def torch_rms_norm(x, g, eps=1e-6):
    import torch
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype) * g


def torch_rotary(x, cos, sin):
    import torch
    half = x.shape[-1] // 2
    return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin


def torch_llama(heads, past):
    import torch
    import torch.nn.functional as F

    def block(x, cos, sin, *rest):
        if past:
            k_cache, v_cache, g1, w_qkv, w_o, g2, w_gate, w_up, w_down = rest
            mask = None
        else:
            mask, g1, w_qkv, w_o, g2, w_gate, w_up, w_down = rest
        batch, seq, d = x.shape
        dim = d // heads
        qkv = torch_rms_norm(x, g1) @ w_qkv
        q, k, v = (qkv[..., i * d:(i + 1) * d].reshape(batch, seq, heads, dim)
                   for i in range(3))
        q = torch_rotary(q, cos, sin).transpose(1, 2)
        k = torch_rotary(k, cos, sin).transpose(1, 2)
        v = v.transpose(1, 2)
        if past:
            k, v = torch.cat((k_cache, k), 2), torch.cat((v_cache, v), 2)
        o = torch_attention(q, k, v, mask)
        x1 = x + o.transpose(1, 2).reshape(batch, seq, d) @ w_o
        h = torch_rms_norm(x1, g2)
        return x1 + (F.silu(h @ w_gate) * (h @ w_up)) @ w_down
    return block


def torch_resnet():
    import torch.nn.functional as F

    def conv(x, w, pad):  # NHWC input, OHWI filter
        y = F.conv2d(x.permute(0, 3, 1, 2), w.permute(0, 3, 1, 2), padding=pad)
        return y.permute(0, 2, 3, 1)

    def block(x, w_1, b_1, w_2, b_2, w_3, b_3):
        h = F.relu(conv(x, w_1, 0) + b_1)
        h = F.relu(conv(h, w_2, 1) + b_2)
        return F.relu(conv(h, w_3, 0) + b_3 + x)
    return block


def torch_block(name):
    """The PyTorch function of block `name` (a key of BLOCKS or ATTENTION)."""
    if name.endswith("_attention"):
        return lambda q, k, v, *mask: torch_attention(q, k, v, mask[0] if mask else None)
    return {
        "gpt_prefill": lambda: torch_gpt(16),
        "gpt_decode": lambda: torch_gpt(16),
        "llama_prefill": lambda: torch_llama(16, 0),
        "llama_decode": lambda: torch_llama(16, 1024),
        "resnet_bottleneck": torch_resnet,
    }[name]()


def torch_inputs(builder, device="cuda"):
    """Random inputs of the builder's argument shapes: activations ~N(0, 1),
    weights scaled by 1/sqrt(fan-in), norms' scales near 1, masks causal."""
    import torch
    inputs = []
    for value, shape, _ in builder.args:
        name = value[1:]
        if name == "mask":
            t = torch.full(shape, float("-inf"), device=device).triu(1)
        elif name.startswith("w_"):
            fan_in = shape[0] if len(shape) == 2 else math.prod(shape[1:])
            t = torch.randn(shape, device=device) / math.sqrt(fan_in)
        elif "norm" in name or name.endswith("_g"):
            t = 1 + 0.1 * torch.randn(shape, device=device)
        else:
            t = torch.randn(shape, device=device)
        inputs.append(t.to(torch.bfloat16))
    return inputs


# The same blocks at sizes the CPU reference checks in seconds, for
# test/GPU/blocks.test (ragged sequence and cache lengths included).
SMALL = {
    "gpt_small": lambda: gpt_block("gpt_small", 2, 64, 128, 2, 256),
    "gpt_decode_small": lambda: gpt_block("gpt_decode_small", 3, 1, 128, 2, 256),
    "llama_small": lambda: llama_block("llama_small", 1, 96, 256, 2, 352),
    "llama_decode_small": lambda: llama_block("llama_decode_small", 2, 1, 256, 2, 352, past=77),
    "resnet_small": lambda: resnet_bottleneck("resnet_small", 2, 14, 64, 16),
    # f32: fused and unfused round alike, so a miscompile cannot hide
    # behind bf16 rounding.
    "gpt_small_f32": lambda: gpt_block("gpt_small_f32", 2, 64, 128, 2, 256, dtype="f32"),
    "llama_small_f32": lambda: llama_block("llama_small_f32", 1, 96, 256, 2, 352, dtype="f32"),
}
SMALL_PATH = os.path.join(ROOT, "test", "GPU", "Inputs", "blocks.mlir")


def render(name):
    builder, result = BLOCKS[name]()
    return builder.text(result)


def render_small():
    texts = []
    for make in SMALL.values():
        builder, result = make()
        texts.append(builder.text(result))
    return ("// The blocks of examples/blocks/ at small sizes (test/GPU/blocks.test).\n\n"
            + "\n".join(texts))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    stale = []
    files = [(os.path.join(OUT_DIR, name + ".mlir"), render(name)) for name in BLOCKS]
    files.append((SMALL_PATH, render_small()))
    for path, text in files:
        if args.write:
            os.makedirs(OUT_DIR, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        elif not os.path.exists(path) or open(path).read() != text:
            stale.append(path)
    if args.check and stale:
        print("out of date (run python3 bench/blocks.py --write):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
