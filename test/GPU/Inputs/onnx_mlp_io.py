"""Writes the input of test/Import/Inputs/mlp.onnxtxt as .npy, and checks
opt-fuse's saved output against the same MLP computed by NumPy in f64.
  onnx_mlp_io.py write X.npy
  onnx_mlp_io.py verify X.npy Y.npy
"""
import sys

import numpy as np

# The initializers of mlp.onnxtxt.
W1 = np.array([[0.5, -1, 0.25], [1, 0.5, -0.5]])
B1 = np.array([0.1, -0.2])
W2 = np.array([[1, 2], [-1, 0.5]])
B2 = np.array([0, 1])

if sys.argv[1] == "write":
    x = np.arange(12, dtype=np.float32).reshape(4, 3) / 4 - 1
    np.save(sys.argv[2], x)
else:
    x = np.load(sys.argv[2]).astype(np.float64)
    y = np.load(sys.argv[3])
    want = np.maximum(x @ W1.T + B1, 0) @ W2 + B2
    assert y.shape == (4, 2) and y.dtype == np.float32, (y.shape, y.dtype)
    err = np.abs(y - want).max()
    assert err < 1e-5, f"max error {err}\n{y}\n{want}"
    print(f"onnx mlp: outputs match NumPy (max error {err:.1e})")
