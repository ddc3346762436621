// Edge cases of docs/numerics.md ("What each op means at the edges"), as
// constants the kernels compute (an argument times zero keeps each a
// kernel's work, not something folded away).

func.func @int_div(%x: tensor<8xi32>) -> tensor<8xi32> {
  %n = fuse.constant dense<[7, -7, -2147483648, 2147483647, -9, 65537, 0, 5]> : tensor<8xi32>
  %d = fuse.constant dense<[0, 2, -1, -1, 4, 3, 0, -5]> : tensor<8xi32>
  %zero = fuse.constant dense<0> : tensor<i32>
  %x0 = fuse.mul %x, %zero : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
  %n1 = fuse.add %n, %x0 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %q = fuse.div %n1, %d : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %p = fuse.mul %n1, %n1 : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  %s = fuse.add %q, %p : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
  return %s : tensor<8xi32>
}

func.func @float_to_int(%x: tensor<8xf32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %c = fuse.constant dense<[0x7FC00000, 0x7F800000, 0xFF800000, 3.0e9, -3.0e9, 2.9, -2.9, 2147483520.0]> : tensor<8xf32>
  %zero = fuse.constant dense<0.0> : tensor<f32>
  %x0 = fuse.mul %x, %zero : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
  %c1 = fuse.add %c, %x0 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %i = fuse.cast %c1 : tensor<8xf32> to tensor<8xi32>
  %h = fuse.cast %c1 : tensor<8xf32> to tensor<8xbf16>
  %j = fuse.cast %h : tensor<8xbf16> to tensor<8xi32>
  return %i, %j : tensor<8xi32>, tensor<8xi32>
}

func.func @domains(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %b = fuse.constant dense<[-2.0, -2.0, 0.0, 0x7FC00000, 1.0, 0.0]> : tensor<6xf32>
  %e = fuse.constant dense<[3.0, 0.5, 0.0, 0.0, 0x7FC00000, -1.0]> : tensor<6xf32>
  %l = fuse.constant dense<[0.0, -0.0, -1.0, 0x7F800000, 4.0, 0.25]> : tensor<6xf32>
  %zero = fuse.constant dense<0.0> : tensor<f32>
  %x0 = fuse.mul %x, %zero : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
  %b1 = fuse.add %b, %x0 : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %w = fuse.pow %b1, %e : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %l1 = fuse.max %l, %l : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  %g = fuse.log %l1 : tensor<6xf32>
  %s = fuse.sqrt %l1 : tensor<6xf32>
  %r = fuse.rsqrt %l1 : tensor<6xf32>
  %v = fuse.reciprocal %l1 : tensor<6xf32>
  return %w, %g, %s, %r, %v : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
