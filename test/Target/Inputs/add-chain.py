"""Prints a function of N chained f32 adds: python3 add-chain.py N."""
import sys

n = int(sys.argv[1])
print("func.func @chain(%x: tensor<4096xf32>, %y: tensor<4096xf32>)"
      " -> tensor<4096xf32> {")
previous = "%x"
for i in range(n):
    print(f"  %v{i} = fuse.add {previous}, %y : (tensor<4096xf32>,"
          " tensor<4096xf32>) -> tensor<4096xf32>")
    previous = f"%v{i}"
print(f"  return {previous} : tensor<4096xf32>")
print("}")
