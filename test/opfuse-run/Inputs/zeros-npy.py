#!/usr/bin/env python3
"""Writes a NumPy .npy file of f32 zeros without NumPy (the CPU tests run
where it may be missing).

    zeros-npy.py PATH D0xD1x...
"""
import struct
import sys

path, dims = sys.argv[1], [int(d) for d in sys.argv[2].split("x")]
shape = "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
header += " " * (63 - (10 + len(header)) % 64) + "\n"
count = 1
for d in dims:
    count *= d
with open(path, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
            header.encode() + bytes(4 * count))
