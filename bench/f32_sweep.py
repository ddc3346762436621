"""Every f32 of a magnitude range, both signs, in chunks on the GPU.

Shared by the scripts that measure the error of an SM approximation
(tanh_approx_error.py, sigmoid_approx_error.py) against f64.
"""
import torch


def f32_sweep(low, high, chunk=1 << 24):
    """Yields CUDA f32 tensors holding every f32 x with low <= |x| <= high,
    positive then negative, at most `chunk` at a time."""
    first = torch.tensor(low, dtype=torch.float32).view(torch.int32).item()
    last = torch.tensor(high, dtype=torch.float32).view(torch.int32).item()
    for sign in (1, -1):
        for start in range(first, last + 1, chunk):
            bits = torch.arange(start, min(start + chunk, last + 1),
                                dtype=torch.int32, device="cuda")
            yield bits.view(torch.float32) * sign
