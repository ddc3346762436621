// A row-parallel layer on a target of 4 SMs, which cannot set 16 aside
// for NCCL (fuse-window-collectives.mlir runs it).
module attributes {fuse.target = #fuse.target<name = "four-sms", description = "", chip = "sm_90", source = "", sm_count = 4, l2_bytes = 62914560, shared_memory_per_sm_bytes = 233472, hbm_bandwidth = 4.8e+12, l2_bandwidth = 1.2e+13, link_bandwidth = 4.5e+11, fp32_flops = 6.7e+13, tf32_tensor_flops = 4.9e+14, fp16_tensor_flops = 9.9e+14, launch_overhead = 2.0e-06, memory_efficiency = 0.9, compute_efficiency = 0.9, tensor_efficiency = 0.8>} {
  func.func @few_sms(%h: tensor<8192x1376xbf16>, %w: tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16> {
    %p = fuse.matmul %h, %w : (tensor<8192x1376xbf16>, tensor<1376x4096xbf16>) -> tensor<8192x4096xbf16>
    %r = fuse.all_reduce sum, %p devices = 8 : tensor<8192x4096xbf16>
    %y = fuse.relu %r : tensor<8192x4096xbf16>
    return %y : tensor<8192x4096xbf16>
  }
}
