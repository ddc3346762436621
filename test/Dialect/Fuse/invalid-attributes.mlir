// RUN: opfuse-opt %s -split-input-file -verify-diagnostics

// Every fuse.* attribute passes exchange is typed and verified where it is
// set (the dialect's verifyOperationAttribute), so a hand-written or
// corrupted one is an error at its op instead of a surprise downstream.

func.func @tiling_as_string(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{'fuse.matmul_tiling' must be a #fuse.tiling, e.g. #fuse.tiling<"128x128x32/2x2/4">}}
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = "wgmma:64x64x64/1x1/4"} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @malformed_tiling(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{'wide' is not [wgmma:]BMxBNxBK/WMxWN/S[/kP] with positive integers of at most 65536}}
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = #fuse.tiling<"wide">} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @huge_tiling(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{'99999999999x64x64/1x1/4' is not [wgmma:]BMxBNxBK/WMxWN/S[/kP] with positive integers of at most 65536}}
  %0 = fuse.matmul %a, %b {fuse.matmul_tiling = #fuse.tiling<"99999999999x64x64/1x1/4">} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @tiling_on_elementwise(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.matmul_tiling' belongs on a fuse.group or a contraction (matmul, conv2d)}}
  %0 = fuse.relu %x {fuse.matmul_tiling = #fuse.tiling<"128x128x32/2x2/4">} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @unknown_attribute(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{unknown attribute 'fuse.tilling' of the fuse dialect}}
  %0 = fuse.relu %x {fuse.tilling = 1} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @offsets_per_result(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.offsets' has 2 offsets for 1 results}}
  %0 = fuse.relu %x {fuse.offsets = array<i64: 0, 256>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @misaligned_offset(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.offsets' offset 100 is neither -1 (outside the arena) nor a multiple of 256}}
  %0 = fuse.relu %x {fuse.offsets = array<i64: 100>} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @grid_too_large(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.grid' exceeds CUDA's grid of 2^31-1 x 65535 x 65535 blocks}}
  %0 = fuse.group (%x) {fuse.grid = array<i64: 2147483648, 1, 1>} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @block_too_large(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.block' exceeds CUDA's block of 1024 threads (x, y <= 1024, z <= 64)}}
  %0 = fuse.group (%x) {fuse.block = array<i64: 1025, 1, 1>} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @grid_of_two(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.grid' must hold 3 sizes (x, y, z)}}
  %0 = fuse.group (%x) {fuse.grid = array<i64: 4, 1>} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @shared_bytes_too_large(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.shared_bytes' must be in [0, 232448]}}
  %0 = fuse.group (%x) {fuse.shared_bytes = 300000 : i64} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @tensor_map_of_missing_input(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{'fuse.tensor_maps' views input 3 of a kernel with 1 inputs}}
  %0 = fuse.group (%x) {fuse.tensor_maps = [#fuse.tensor_map<input = 3, dims = [64, 64], strides = [128], box = [64, 64]>]} : (tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x64xbf16>):
    %r = fuse.relu %a : tensor<64x64xbf16>
    fuse.yield %r : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @tensor_map_stride(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{dims must be positive, box sizes in [1, 256] and strides positive multiples of 16 bytes}}
  %0 = fuse.group (%x) {fuse.tensor_maps = [#fuse.tensor_map<input = 0, dims = [64, 64], strides = [100], box = [64, 64]>]} : (tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x64xbf16>):
    %r = fuse.relu %a : tensor<64x64xbf16>
    fuse.yield %r : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @tensor_map_offset(%x: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @below {{offset must be a non-negative multiple of 16 bytes (the map's start must be 16-byte aligned)}}
  %0 = fuse.group (%x) {fuse.tensor_maps = [#fuse.tensor_map<input = 0, dims = [64, 32], strides = [128], box = [64, 32], offset = 8>]} : (tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  ^bb0(%a: tensor<64x64xbf16>):
    %r = fuse.relu %a : tensor<64x64xbf16>
    fuse.yield %r : tensor<64x64xbf16>
  }
  return %0 : tensor<64x64xbf16>
}

// -----

func.func @schedule_feed(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{the mma_sync schedule copies its operands with cp_async}}
  %0 = fuse.group (%x) {fuse.gemm_schedule = #fuse.gemm_schedule<mma_sync, tma>} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

// expected-error @below {{'fuse.target' belongs on a module}}
func.func @target_on_function(%x: tensor<64xf32>) -> tensor<64xf32> attributes {fuse.target = #fuse.target<name = "t", description = "", chip = "sm_90", source = "", sm_count = 132, l2_bytes = 62914560, shared_memory_per_sm_bytes = 233472, hbm_bandwidth = 4.8e+12, l2_bandwidth = 1.2e+13, link_bandwidth = 4.5e+11, fp32_flops = 6.7e+13, tf32_tensor_flops = 4.9e+14, fp16_tensor_flops = 9.9e+14, launch_overhead = 2.0e-06, memory_efficiency = 0.9, compute_efficiency = 0.9, tensor_efficiency = 0.8>} {
  return %x : tensor<64xf32>
}

// -----

// expected-error @below {{efficiencies must be in (0, 1]}}
module attributes {fuse.target = #fuse.target<name = "t", description = "", chip = "sm_90", source = "", sm_count = 132, l2_bytes = 62914560, shared_memory_per_sm_bytes = 233472, hbm_bandwidth = 4.8e+12, l2_bandwidth = 1.2e+13, link_bandwidth = 4.5e+11, fp32_flops = 6.7e+13, tf32_tensor_flops = 4.9e+14, fp16_tensor_flops = 9.9e+14, launch_overhead = 2.0e-06, memory_efficiency = 1.5, compute_efficiency = 0.9, tensor_efficiency = 0.8>} {
}

// -----

func.func @memory_on_op(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.memory' belongs on a function}}
  %0 = fuse.relu %x {fuse.memory = #fuse.memory_plan<arena = 0, lower_bound = 0, naive = 0, in_place = 0, inputs = 0, constants = 0, outputs = 0, plan_outputs = false, order = "program", placement = "size">} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @step_name_not_a_string(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.step_name' must be a launch step's name}}
  %0 = fuse.group (%x) {fuse.step_name = 3 : i64} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @step_name_empty(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.step_name' is empty}}
  %0 = fuse.group (%x) {fuse.step_name = ""} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @step_name_on_an_op(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.step_name' belongs on a fuse.group}}
  %r = fuse.relu %x {fuse.step_name = "f_k1"} : tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

func.func @split_workspace_too_few_bytes(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.split_workspace' must be [splits (2 to 256), counters (1 or more), workspace bytes (at least 4 per split and counter)]}}
  %0 = fuse.group (%x) {fuse.split_workspace = array<i64: 4, 2, 16>} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @split_workspace_one_split(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.split_workspace' must be [splits (2 to 256)}}
  %0 = fuse.group (%x) {fuse.split_workspace = array<i64: 1, 2, 4096>} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @split_workspace_not_an_array(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.split_workspace' must be an array<i64> of splits, counters and bytes}}
  %0 = fuse.group (%x) {fuse.split_workspace = 4 : i64} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @early_launch_with_a_value(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.early_launch' must be a unit attribute}}
  %0 = fuse.group (%x) {fuse.early_launch = true} : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %r = fuse.relu %a : tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %0 : tensor<64xf32>
}

// -----

func.func @early_launch_on_an_op(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.early_launch' belongs on a fuse.group}}
  %0 = fuse.relu %x {fuse.early_launch} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// expected-error @below {{the kernel latency must be positive and finite}}
module attributes {fuse.target = #fuse.target<name = "t", description = "", chip = "sm_90", source = "", sm_count = 132, l2_bytes = 62914560, shared_memory_per_sm_bytes = 233472, hbm_bandwidth = 4.8e+12, l2_bandwidth = 1.2e+13, link_bandwidth = 4.5e+11, fp32_flops = 6.7e+13, tf32_tensor_flops = 4.9e+14, fp16_tensor_flops = 9.9e+14, launch_overhead = 2.0e-06, memory_efficiency = 0.9, compute_efficiency = 0.9, tensor_efficiency = 0.8, kernel_latency = 0.0>} {
}

// -----

// fuse.shard marks a function argument's sharded axis (--devices).
// expected-error @below {{'fuse.shard' of argument 0 is axis 2, not an axis of its type 'tensor<4x8xf32>'}}
func.func @shard_axis_out_of_range(%x: tensor<4x8xf32> {fuse.shard = 2 : i64}) -> tensor<4x8xf32> {
  return %x : tensor<4x8xf32>
}

// -----

// expected-error @below {{'fuse.shard' of argument 1 must be an i64 axis, e.g. {fuse.shard = 1}}}
func.func @shard_not_an_axis(%x: tensor<4xf32>, %y: tensor<4xf32> {fuse.shard = "rows"}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

func.func @shard_on_an_op(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.shard' belongs on a function argument}}
  %0 = fuse.relu %x {fuse.shard = 0 : i64} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// expected-error @below {{unknown argument attribute 'fuse.shards' of the fuse dialect}}
func.func @misspelt_shard(%x: tensor<4xf32> {fuse.shards = 0 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// fuse.name is an imported graph's name for an argument.
// expected-error @below {{'fuse.name' of argument 0 must be a string}}
func.func @name_not_a_string(%x: tensor<4xf32> {fuse.name = 3 : i64}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// fuse.overlap_sms marks the chunks of a windowed layer: a collective and
// the GEMMs beside it, nothing else, with a count of SMs in [1, 64].
func.func @overlap_on_elementwise(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.overlap_sms' belongs on a collective, a GEMM contraction or a fuse.group}}
  %0 = fuse.relu %x {fuse.overlap_sms = 16 : i64} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @overlap_too_many_sms(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.overlap_sms' must be an i64 in [1, 64]}}
  %0 = fuse.all_reduce sum, %x devices = 2 {fuse.overlap_sms = 65 : i64} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @overlap_as_string(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.overlap_sms' must be an i64 count of SMs}}
  %0 = fuse.all_reduce sum, %x devices = 2 {fuse.overlap_sms = "all"} : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @contract_on_a_multiply(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.contract' belongs on a fuse.add}}
  %0 = fuse.mul %x, %x {fuse.contract} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @contract_with_a_value(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @below {{'fuse.contract' must be a unit attribute}}
  %0 = fuse.add %x, %x {fuse.contract = 1 : i64} : (tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %0 : tensor<64xf32>
}
