// A convolution block as the ONNX importer writes it.
func.func @conv_block(%x: tensor<2x4x6x6xf32>, %w1: tensor<4x3x3x4xf32>, %w2: tensor<4x3x3x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %s = fuse.constant dense<[[[1.0]], [[2.0]], [[0.5]], [[-1.5]]]> : tensor<4x1x1xf32>
  %h = fuse.constant dense<0.25> : tensor<4x1x1xf32>
  %0 = fuse.transpose %x permutation = [0, 2, 3, 1] : tensor<2x4x6x6xf32> -> tensor<2x6x6x4xf32>
  %1 = fuse.conv2d %0, %w1 strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 : (tensor<2x6x6x4xf32>, tensor<4x3x3x4xf32>) -> tensor<2x6x6x4xf32>
  %2 = fuse.add %1, %b : (tensor<2x6x6x4xf32>, tensor<4xf32>) -> tensor<2x6x6x4xf32>
  %3 = fuse.transpose %2 permutation = [0, 3, 1, 2] : tensor<2x6x6x4xf32> -> tensor<2x4x6x6xf32>
  %4 = fuse.mul %3, %s : (tensor<2x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<2x4x6x6xf32>
  %5 = fuse.add %4, %h : (tensor<2x4x6x6xf32>, tensor<4x1x1xf32>) -> tensor<2x4x6x6xf32>
  %6 = fuse.relu %5 : tensor<2x4x6x6xf32>
  %7 = fuse.transpose %6 permutation = [0, 2, 3, 1] : tensor<2x4x6x6xf32> -> tensor<2x6x6x4xf32>
  %8 = fuse.conv2d %7, %w2 strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 : (tensor<2x6x6x4xf32>, tensor<4x3x3x4xf32>) -> tensor<2x6x6x4xf32>
  %9 = fuse.transpose %8 permutation = [0, 3, 1, 2] : tensor<2x6x6x4xf32> -> tensor<2x4x6x6xf32>
  %10 = fuse.add %9, %x : (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) -> tensor<2x4x6x6xf32>
  %11 = fuse.relu %10 : tensor<2x4x6x6xf32>
  %12 = fuse.reduce_mean %11 axes = [2, 3] keepdims : tensor<2x4x6x6xf32> -> tensor<2x4x1x1xf32>
  %13 = fuse.reshape %12 : tensor<2x4x1x1xf32> -> tensor<2x4xf32>
  return %13 : tensor<2x4xf32>
}


// A max pool after it: a concat with padding, strided slices, maxima.
func.func @pool(%c: tensor<1x4x4x3xf32>) -> tensor<1x3x2x2xf32> {
  %ninf = fuse.constant dense<0xFF800000> : tensor<1x3x1x4xf32>
  %0 = fuse.transpose %c permutation = [0, 3, 1, 2] : tensor<1x4x4x3xf32> -> tensor<1x3x4x4xf32>
  %1 = fuse.concat %0, %ninf axis = 2 : (tensor<1x3x4x4xf32>, tensor<1x3x1x4xf32>) -> tensor<1x3x5x4xf32>
  %2 = fuse.slice %1 offsets = [0, 0, 0, 0] sizes = [1, 3, 2, 2] strides = [1, 1, 2, 2] : tensor<1x3x5x4xf32> -> tensor<1x3x2x2xf32>
  %3 = fuse.slice %1 offsets = [0, 0, 1, 1] sizes = [1, 3, 2, 2] strides = [1, 1, 2, 2] : tensor<1x3x5x4xf32> -> tensor<1x3x2x2xf32>
  %4 = fuse.max %2, %3 : (tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
  %5 = fuse.transpose %4 permutation = [0, 2, 3, 1] : tensor<1x3x2x2xf32> -> tensor<1x2x2x3xf32>
  %6 = fuse.neg %5 : tensor<1x2x2x3xf32>
  %7 = fuse.transpose %6 permutation = [0, 3, 1, 2] : tensor<1x2x2x3xf32> -> tensor<1x3x2x2xf32>
  return %7 : tensor<1x3x2x2xf32>
}


// A dense constant whose rows and columns swap, a reduction without
// keepdims, and a broadcast operand that needs a transpose of its own.
func.func @operands(%x: tensor<8x2x4xf32>, %v: tensor<2x4xf32>) -> tensor<4x2xf32> {
  %k2 = fuse.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]> : tensor<4x2xf32>
  %0 = fuse.transpose %x permutation = [0, 2, 1] : tensor<8x2x4xf32> -> tensor<8x4x2xf32>
  %vt = fuse.transpose %v permutation = [1, 0] : tensor<2x4xf32> -> tensor<4x2xf32>
  %1 = fuse.add %0, %k2 : (tensor<8x4x2xf32>, tensor<4x2xf32>) -> tensor<8x4x2xf32>
  %2 = fuse.mul %1, %vt : (tensor<8x4x2xf32>, tensor<4x2xf32>) -> tensor<8x4x2xf32>
  %3 = fuse.reduce_sum %2 axes = [0] : tensor<8x4x2xf32> -> tensor<4x2xf32>
  return %3 : tensor<4x2xf32>
}


// Read by a matmul: moving the transpose past the negation would leave one
// as large, so it stays.
func.func @kept(%x: tensor<8x16xf32>, %w: tensor<8x8xf32>) -> tensor<16x8xf32> {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %1 = fuse.neg %0 : tensor<16x8xf32>
  %2 = fuse.matmul %1, %w : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  return %2 : tensor<16x8xf32>
}

// Two branches, each a convolution's result transposed and scaled, added:
// neither transpose can move alone (the add would read the other branch
// transposed back), both move together (the second branch's scale joins
// with the transpose it reads).
func.func @two_branches(%a: tensor<1x4x4x8xf32>, %b: tensor<1x4x4x8xf32>, %s: tensor<8x1x1xf32>) -> tensor<1x4x4x8xf32> {
  %pad = fuse.constant dense<0.0> : tensor<f32>
  %0 = fuse.transpose %a permutation = [0, 3, 1, 2] : tensor<1x4x4x8xf32> -> tensor<1x8x4x4xf32>
  %1 = fuse.mul %0, %s : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %2 = fuse.transpose %b permutation = [0, 3, 1, 2] : tensor<1x4x4x8xf32> -> tensor<1x8x4x4xf32>
  %3 = fuse.mul %2, %s : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %4 = fuse.add %1, %3 : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %5 = fuse.broadcast_to %pad : tensor<f32> -> tensor<1x8x1x4xf32>
  %6 = fuse.concat %4, %5 axis = 2 : (tensor<1x8x4x4xf32>, tensor<1x8x1x4xf32>) -> tensor<1x8x5x4xf32>
  %7 = fuse.slice %6 offsets = [0, 0, 1, 0] sizes = [1, 8, 4, 4] strides = [1, 1, 1, 1] : tensor<1x8x5x4xf32> -> tensor<1x8x4x4xf32>
  %8 = fuse.transpose %7 permutation = [0, 2, 3, 1] : tensor<1x8x4x4xf32> -> tensor<1x4x4x8xf32>
  return %8 : tensor<1x4x4x8xf32>
}

// A softmax over a transposed tensor's last axis, transposed back: after
// fuse-decompose its reductions and elementwise ops move into the input's
// layout (a softmax over its first axis, which the row kernel reads in
// strided rows), and both transposes vanish.
func.func @softmax_transposed(%x: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %t = fuse.transpose %x permutation = [1, 0] : tensor<64x48xf32> -> tensor<48x64xf32>
  %s = fuse.softmax %t axis = 1 : tensor<48x64xf32>
  %b = fuse.transpose %s permutation = [1, 0] : tensor<48x64xf32> -> tensor<64x48xf32>
  return %b : tensor<64x48xf32>
}

// A permutation that is its own inverse: the add reads %o where the region
// would read it transposed, through %u, which the mul reads too. %u must
// stay (the region may not absorb a transpose it reads in place), so the
// region is the add alone, and that does not pay.
func.func @involution(%x: tensor<8x8xf32>, %o: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %u = fuse.transpose %o permutation = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %t = fuse.transpose %x permutation = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  %m1 = fuse.add %t, %o : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %m2 = fuse.mul %m1, %u : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = fuse.transpose %m2 permutation = [1, 0] : tensor<8x8xf32> -> tensor<8x8xf32>
  return %b : tensor<8x8xf32>
}

// A region that stays before one that moves: the pass takes two rounds, and
// says once, after the last, why the first stays.
func.func @kept_once(%x: tensor<8x16xf32>, %w: tensor<8x8xf32>, %y: tensor<4x8x8xf32>) -> (tensor<16x8xf32>, tensor<4x8x8xf32>) {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<8x16xf32> -> tensor<16x8xf32>
  %1 = fuse.neg %0 : tensor<16x8xf32>
  %2 = fuse.matmul %1, %w : (tensor<16x8xf32>, tensor<8x8xf32>) -> tensor<16x8xf32>
  %3 = fuse.transpose %y permutation = [0, 2, 1] : tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  %4 = fuse.relu %3 : tensor<4x8x8xf32>
  %5 = fuse.transpose %4 permutation = [0, 2, 1] : tensor<4x8x8xf32> -> tensor<4x8x8xf32>
  return %2, %5 : tensor<16x8xf32>, tensor<4x8x8xf32>
}
