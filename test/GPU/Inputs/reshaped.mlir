// Reshapes inside a kernel: a row bias before the reshape, a bias and a
// column after it, each read in its own layout.
func.func @reshaped(%x: tensor<64x32xf32>, %rowb: tensor<32xf32>, %b: tensor<8xf32>,
                    %col: tensor<64x1x1xf32>) -> tensor<64x4x8xf32> {
  %0 = fuse.add %x, %rowb : (tensor<64x32xf32>, tensor<32xf32>) -> tensor<64x32xf32>
  %1 = fuse.exp %0 : tensor<64x32xf32>
  %2 = fuse.reshape %1 : tensor<64x32xf32> -> tensor<64x4x8xf32>
  %3 = fuse.mul %2, %b : (tensor<64x4x8xf32>, tensor<8xf32>) -> tensor<64x4x8xf32>
  %4 = fuse.sub %3, %col : (tensor<64x4x8xf32>, tensor<64x1x1xf32>) -> tensor<64x4x8xf32>
  return %4 : tensor<64x4x8xf32>
}
