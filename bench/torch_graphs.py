"""The example graphs written in PyTorch, for the side-by-side benchmarks.

Each entry mirrors a model under examples/: the same ops, shapes and dtype,
so compare.py and memory_compare.py measure PyTorch on what opfuse compiles.
"""
import torch
import torch.nn.functional as F


def ew_chain(x, b):
    return torch.tanh(x * torch.sigmoid(1.702 * x) + b) * 0.5 + x


def bias_gelu_residual(x, bias, residual):
    return F.gelu(x + bias) + residual


def softmax(x):
    return torch.softmax(x, dim=-1)


def layernorm(x, gamma, beta):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps=1e-5)


def mlp(x, w1, b1, w2, b2):
    h = F.gelu(x @ w1 + b1, approximate="tanh")
    return h @ w2 + b2 + x


def transpose(x):
    return x.t().contiguous()


def heads(x):
    return x.permute(0, 2, 1, 3).contiguous()


def rotary(x, cos, sin):
    x1, x2 = x[..., :64], x[..., 64:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


# name: (model file, function, input shapes, dtype)
GRAPHS = {
    "ew_chain": ("examples/ew_chain.mlir", ew_chain,
                 [(8192, 8192), (8192,)], torch.float32),
    "bias_gelu_residual": ("examples/bias_gelu_residual.mlir",
                           bias_gelu_residual,
                           [(16384, 4096), (4096,), (16384, 4096)],
                           torch.bfloat16),
    "softmax": ("examples/softmax.mlir", softmax, [(65536, 1024)],
                torch.float32),
    "layernorm": ("examples/layernorm.mlir", layernorm,
                  [(16384, 4096), (4096,), (4096,)], torch.float32),
    "transpose_f32": ("bench/graphs/transpose_f32.mlir", transpose,
                      [(8192, 8192)], torch.float32),
    "transpose_bf16": ("bench/graphs/transpose_bf16.mlir", transpose,
                       [(8192, 8192)], torch.bfloat16),
    "heads_bf16": ("bench/graphs/heads_bf16.mlir", heads,
                   [(8, 2048, 32, 128)], torch.bfloat16),
    # Held out: not tuned on.
    "transpose_ragged_f32": ("bench/graphs/transpose_ragged_f32.mlir",
                             transpose, [(5001, 3003)], torch.float32),
    "rotary_bf16": ("bench/graphs/rotary_bf16.mlir", rotary,
                    [(4, 2048, 32, 128), (2048, 1, 128), (2048, 1, 128)],
                    torch.bfloat16),
    "mlp": ("examples/mlp.mlir", mlp,
            [(8192, 4096), (4096, 11008), (11008,), (11008, 4096), (4096,)],
            torch.bfloat16),
}
