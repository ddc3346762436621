#!/usr/bin/env python3
"""Error of the sigmoid opfuse uses for bf16 and f16 results.

Runs on the GPU machine (Triton's inline PTX): every f32 whose magnitude lies
in [2^-20, 64] (both signs) through 1 / (1 + 2^(-x log2 e)) with
ex2.approx.ftz.f32 and rcp.approx.ftz.f32, and through SiLU (x times that),
against f64. Prints the largest relative errors and where they occur; the
largest relative error of the sigmoid is what a bf16 (2^-9) or f16 (2^-12)
rounding must dwarf.

    python3 bench/sigmoid_approx_error.py
"""
import torch
import triton
import triton.language as tl
from f32_sweep import f32_sweep


@triton.jit
def sigmoid_approx(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    # Rounded to f32 before the multiply, as in the kernels.
    t = x * -1.4426950408889634
    e = tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=f,f", [t],
                                  dtype=tl.float32, is_pure=True, pack=1)
    d = 1.0 + e
    y = tl.inline_asm_elementwise("rcp.approx.ftz.f32 $0, $1;", "=f,f", [d],
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offsets, y, mask=mask)


def main():
    worst = {"sigmoid": (0.0, 0.0), "silu": (0.0, 0.0)}
    for x in f32_sweep(2.0 ** -20, 64.0):
        y = torch.empty_like(x)
        n = x.numel()
        sigmoid_approx[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        ref = torch.sigmoid(x.double())
        for name, got, want in (("sigmoid", y.double(), ref),
                                ("silu", (x * y).double(),
                                 x.double() * ref)):
            rel = (got - want).abs() / want.abs()
            i = int(rel.argmax())
            if rel[i].item() > worst[name][0]:
                worst[name] = (rel[i].item(), x[i].item())
    print(f"device: {torch.cuda.get_device_name()}")
    for name, (rel, at) in worst.items():
        print(f"{name}: |x| in [2^-20, 64], both signs: max relative error "
              f"{rel:.4e} (x = {at:.9g})")


if __name__ == "__main__":
    main()
