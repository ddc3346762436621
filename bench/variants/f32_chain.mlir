// Variants of the f32 GELU-erf x sigmoid chain of issue 23 on 4097x1023, one
// function each, for opt-fuse --function=NAME --bench: a scaled copy, the
// chain, the chain with its sigmoid written as exp, add and divide (the IEEE
// form opfuse used before 2026-12-03), and each function alone.
func.func @copyish(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %c = fuse.constant dense<2.0> : tensor<f32>
  %0 = fuse.mul %x, %c : (tensor<4097x1023xf32>, tensor<f32>) -> tensor<4097x1023xf32>
  return %0 : tensor<4097x1023xf32>
}
func.func @erf_only(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.erf %x : tensor<4097x1023xf32>
  return %0 : tensor<4097x1023xf32>
}
func.func @gelu_erf(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<4097x1023xf32>
  return %0 : tensor<4097x1023xf32>
}
func.func @sigmoid_only(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.sigmoid %x : tensor<4097x1023xf32>
  return %0 : tensor<4097x1023xf32>
}
func.func @exp_only(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.exp %x : tensor<4097x1023xf32>
  return %0 : tensor<4097x1023xf32>
}
func.func @tanh_only(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.tanh %x : tensor<4097x1023xf32>
  return %0 : tensor<4097x1023xf32>
}
func.func @chain(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<4097x1023xf32>
  %1 = fuse.sigmoid %x : tensor<4097x1023xf32>
  %2 = fuse.mul %0, %1 : (tensor<4097x1023xf32>, tensor<4097x1023xf32>) -> tensor<4097x1023xf32>
  return %2 : tensor<4097x1023xf32>
}
func.func @chain_old(%x: tensor<4097x1023xf32>) -> tensor<4097x1023xf32> {
  %0 = fuse.gelu %x approximate = none : tensor<4097x1023xf32>
  %n = fuse.neg %x : tensor<4097x1023xf32>
  %e = fuse.exp %n : tensor<4097x1023xf32>
  %one = fuse.constant dense<1.0> : tensor<f32>
  %d = fuse.add %e, %one : (tensor<4097x1023xf32>, tensor<f32>) -> tensor<4097x1023xf32>
  %1 = fuse.div %one, %d : (tensor<f32>, tensor<4097x1023xf32>) -> tensor<4097x1023xf32>
  %2 = fuse.mul %0, %1 : (tensor<4097x1023xf32>, tensor<4097x1023xf32>) -> tensor<4097x1023xf32>
  return %2 : tensor<4097x1023xf32>
}
