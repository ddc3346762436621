#!/usr/bin/env python3
"""Error of the SM's tanh.approx.f32 (what opfuse uses for bf16 tanh/GELU).

Runs on the GPU machine (Triton's inline PTX): every f32 whose magnitude lies
in [2^-20, 16] (all 2^27-odd bit patterns, both signs) through
tanh.approx.f32, against tanh in f64. Prints the largest relative and
absolute errors and where they occur.

    python3 bench/tanh_approx_error.py
"""
import torch
import triton
import triton.language as tl
from f32_sweep import f32_sweep


@triton.jit
def tanh_approx(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=f,f", [x],
                                  dtype=tl.float32, is_pure=True, pack=1)
    tl.store(y_ptr + offsets, y, mask=mask)


def main():
    worst_rel = worst_abs = (0.0, 0.0)
    for x in f32_sweep(2.0 ** -20, 16.0):
        y = torch.empty_like(x)
        n = x.numel()
        tanh_approx[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        ref = torch.tanh(x.double())
        err = (y.double() - ref).abs()
        rel = err / ref.abs()
        i = int(rel.argmax())
        if rel[i].item() > worst_rel[0]:
            worst_rel = (rel[i].item(), x[i].item())
        i = int(err.argmax())
        if err[i].item() > worst_abs[0]:
            worst_abs = (err[i].item(), x[i].item())
    print(f"device: {torch.cuda.get_device_name()}")
    print(f"|x| in [2^-20, 16], both signs: max relative error "
          f"{worst_rel[0]:.4e} (x = {worst_rel[1]:.9g}), max absolute error "
          f"{worst_abs[0]:.4e} (x = {worst_abs[1]:.9g})")


if __name__ == "__main__":
    main()
