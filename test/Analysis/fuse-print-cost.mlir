// RUN: opfuse-opt %s -fuse-print-cost -o /dev/null 2>&1 | FileCheck %s
// RUN: opfuse-opt %s "-fuse-set-target=target=a100" -fuse-print-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=A100
// RUN: opfuse-opt %s "-fuse-set-target=target=%S/Inputs/h200-half-hbm.json" -fuse-print-cost -o /dev/null 2>&1 | FileCheck %s --check-prefix=FILE

// The cost model's numbers for each kind of op on fixed shapes, on the H200
// datasheet target (docs/cost-model.md): HBM 4.8 TB/s x 0.85 = 4080 GB/s,
// L2 2.5x that, FP32 67 TFLOP/s x 0.8 = 53.6, BF16 tensor 989.5 x 0.7 =
// 692.65, NVLink 450 GB/s per direction, 2 us per launch and 0.9 us of
// latency every kernel pays beyond it. The FP32 ridge point is 53.6 / 4.08
// = 13.14 FLOP/B, the BF16 tensor one 169.77.

// The seed's 1024^3 f32 matmul: 2 * 1024^3 = 2.15 GFLOP, 3 x 4 MiB moved,
// 170.67 FLOP/B, far above the ridge of an f32 GEMM on FMAs (39% of the
// FP32 ceiling, 5.12 FLOP/B): compute-bound, 2.15e9 / (0.39 x 53.6e12) =
// 102.73 us. A GEMM's operands stream from HBM even when they fit in the
// L2.
// CHECK: remark: kernel @matmul_seed_k0 (matmul): class compute, bound compute; 2147483648 FLOPs, 12582912 bytes, 170.67 FLOP/B (ridge 5.12); predicted 105.63 us (compute 102.73, memory 3.08, launch 2.90)
func.func @matmul_seed(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = fuse.matmul %a, %b : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// A matmul is compute-class by its trait, but the roofline classifies by
// shape: 8 rows against a 4096x4096 bf16 weight is 7.97 FLOP/B, below the
// tensor-core ridge (169.77), so it is memory-bound; 8192 rows is 1638 FLOP/B
// and compute-bound at 692.65 TFLOP/s. The small one's 8 rows fill half of
// a 16-row skinny tile: its MMAs count twice (0.78 us).
// CHECK: remark: kernel @matmul_small_vs_large_k0 (matmul): class compute, bound memory; 268435456 FLOPs, 33685504 bytes, 7.97 FLOP/B (ridge 169.77); predicted 11.16 us (compute 0.78, memory 8.26, launch 2.90)
// CHECK: remark: kernel @matmul_small_vs_large_k1 (matmul): class compute, bound compute; 274877906944 FLOPs, 167772160 bytes, 1638.40 FLOP/B (ridge 169.77); predicted 399.75 us (compute 396.85, memory 41.12, launch 2.90)
func.func @matmul_small_vs_large(%a: tensor<8x4096xbf16>, %w: tensor<4096x4096xbf16>, %x: tensor<8192x4096xbf16>) -> (tensor<8x4096xbf16>, tensor<8192x4096xbf16>) {
  %0 = fuse.matmul %a, %w : (tensor<8x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<8x4096xbf16>
  %1 = fuse.matmul %x, %w : (tensor<8192x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<8192x4096xbf16>
  return %0, %1 : tensor<8x4096xbf16>, tensor<8192x4096xbf16>
}

// Elementwise ops read each operand at its own size (the bias row is 32 KiB);
// a reshape launches nothing, so the exp is k3.
// CHECK: remark: kernel @elementwise_k0 (add): class memory, bound memory; 67108864 FLOPs, 536903680 bytes, 0.12 FLOP/B (ridge 13.14); predicted 134.49 us (compute 1.25, memory 131.59, launch 2.90)
// CHECK: remark: kernel @elementwise_k1 (gelu): class memory, bound memory; 603979776 FLOPs, 536870912 bytes, 1.12 FLOP/B (ridge 13.14); predicted 134.49 us (compute 11.27, memory 131.59, launch 2.90)
// CHECK: remark: kernel @elementwise_k2 (cast): class memory, bound memory; 0 FLOPs, 402653184 bytes, 0.00 FLOP/B (ridge 13.14); predicted 101.59 us (compute 0.00, memory 98.69, launch 2.90)
// CHECK: remark: kernel @elementwise_k3 (exp): class memory, bound memory; 67108864 FLOPs, 268435456 bytes, 0.25 FLOP/B (ridge 13.14); predicted 68.69 us (compute 1.25, memory 65.79, launch 2.90)
func.func @elementwise(%x: tensor<8192x8192xf32>, %b: tensor<8192xf32>) -> tensor<67108864xbf16> {
  %0 = fuse.add %x, %b : (tensor<8192x8192xf32>, tensor<8192xf32>) -> tensor<8192x8192xf32>
  %1 = fuse.gelu %0 approximate = tanh : tensor<8192x8192xf32>
  %2 = fuse.cast %1 : tensor<8192x8192xf32> to tensor<8192x8192xbf16>
  %3 = fuse.reshape %2 : tensor<8192x8192xbf16> -> tensor<67108864xbf16>
  %4 = fuse.exp %3 : tensor<67108864xbf16>
  return %4 : tensor<67108864xbf16>
}

// CHECK: remark: kernel @l2_resident_k0 (exp): class memory, bound memory; 1048576 FLOPs, 8388608 bytes, 0.12 FLOP/B (ridge 13.14); predicted 3.72 us (compute 0.02, memory 0.82 from L2, launch 2.90)
func.func @l2_resident(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = fuse.exp %x : tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// CHECK: remark: kernel @reductions_k0 (reduce_sum): class memory, bound memory; 67092480 FLOPs, 268500992 bytes, 0.25 FLOP/B (ridge 13.14); predicted 68.71 us (compute 1.25, memory 65.81, launch 2.90)
// CHECK: remark: kernel @reductions_k1 (softmax): class memory, bound memory; 335544320 FLOPs, 536870912 bytes, 0.62 FLOP/B (ridge 13.14); predicted 134.49 us (compute 6.26, memory 131.59, launch 2.90)
// CHECK: remark: kernel @reductions_k2 (layer_norm): class memory, bound memory; 402718720 FLOPs, 536887296 bytes, 0.75 FLOP/B (ridge 13.14); predicted 134.49 us (compute 7.51, memory 131.59, launch 2.90)
func.func @reductions(%x: tensor<16384x4096xf32>, %g: tensor<4096xf32>) -> (tensor<16384xf32>, tensor<16384x4096xf32>, tensor<16384x4096xf32>) {
  %0 = fuse.reduce_sum %x axes = [1] : tensor<16384x4096xf32> -> tensor<16384xf32>
  %1 = fuse.softmax %x axis = 1 : tensor<16384x4096xf32>
  %2 = fuse.layer_norm %x scale %g axis = 1 epsilon = 1.0e-05 : (tensor<16384x4096xf32>, tensor<4096xf32>) -> tensor<16384x4096xf32>
  return %0, %1, %2 : tensor<16384xf32>, tensor<16384x4096xf32>, tensor<16384x4096xf32>
}

// CHECK: remark: kernel @data_movement_k0 (transpose): class memory, bound memory; 0 FLOPs, 134217728 bytes, 0.00 FLOP/B (ridge 13.14); predicted 35.80 us (compute 0.00, memory 32.90, launch 2.90)
// CHECK: remark: kernel @data_movement_k1 (gather): class memory, bound memory; 0 FLOPs, 33558528 bytes, 0.00 FLOP/B (ridge 13.14); predicted 6.19 us (compute 0.00, memory 3.29 from L2, launch 2.90)
func.func @data_movement(%x: tensor<4096x4096xf32>, %i: tensor<1024xi32>) -> (tensor<4096x4096xf32>, tensor<1024x4096xf32>) {
  %0 = fuse.transpose %x permutation = [1, 0] : tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %1 = fuse.gather %x, %i axis = 0 : (tensor<4096x4096xf32>, tensor<1024xi32>) -> tensor<1024x4096xf32>
  return %0, %1 : tensor<4096x4096xf32>, tensor<1024x4096xf32>
}

// CHECK: remark: kernel @conv_k0 (conv2d): class compute, bound compute; 7398752256 FLOPs, 25763840 bytes, 287.18 FLOP/B (ridge 101.86); predicted 20.70 us (compute 17.80, memory 6.31, launch 2.90)
func.func @conv(%x: tensor<32x56x56x64xbf16>, %w: tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16> {
  %0 = fuse.conv2d %x, %w strides = [1, 1] padding = [1, 1, 1, 1] dilation = [1, 1] groups = 1 : (tensor<32x56x56x64xbf16>, tensor<64x3x3x64xbf16>) -> tensor<32x56x56x64xbf16>
  return %0 : tensor<32x56x56x64xbf16>
}

// A ring all-reduce over 8 devices sends 2 x 64 MiB x 7/8 per device: at
// 450 GB/s that is 260.98 us, far above its memory time.
// CHECK: remark: kernel @collectives_c0 (all_reduce): class communication, bound communication; 29360128 FLOPs, 134217728 bytes, 117440512 link bytes, 0.22 FLOP/B (ridge 13.14); predicted 262.98 us (compute 0.55, memory 32.90, link 260.98, launch 2.00)
// CHECK: remark: kernel @collectives_c1 (all_gather): class communication, bound communication; 0 FLOPs, 603979776 bytes, 469762048 link bytes, 0.00 FLOP/B (ridge 13.14); predicted 1045.92 us (compute 0.00, memory 148.03, link 1043.92, launch 2.00)
func.func @collectives(%x: tensor<8192x4096xbf16>) -> (tensor<8192x4096xbf16>, tensor<8192x32768xbf16>) {
  %0 = fuse.all_reduce sum, %x devices = 8 : tensor<8192x4096xbf16>
  %1 = fuse.all_gather %x axis = 1 devices = 8 : tensor<8192x4096xbf16> -> tensor<8192x32768xbf16>
  return %0, %1 : tensor<8192x4096xbf16>, tensor<8192x32768xbf16>
}

// A group is one kernel: FLOPs of its ops, bytes of its inputs and results
// only (the intermediate stays in registers). Its compute term is its issue
// time, above the FLOPs' 2.50 us: an instruction an element of each of its
// two ops (2 x 64M) at half the 53.6 TFLOP/s FP32 ceiling.
// CHECK: remark: kernel @group_k0 (add, exp): class memory, bound memory; 134217728 FLOPs, 536903680 bytes, 0.25 FLOP/B (ridge 13.14); predicted 134.49 us (compute 5.01, memory 131.59, launch 2.90)
func.func @group(%x: tensor<8192x8192xf32>, %b: tensor<8192xf32>) -> tensor<8192x8192xf32> {
  %0 = fuse.group(%x, %b) : (tensor<8192x8192xf32>, tensor<8192xf32>) -> tensor<8192x8192xf32> {
  ^bb0(%a: tensor<8192x8192xf32>, %c: tensor<8192xf32>):
    %1 = fuse.add %a, %c : (tensor<8192x8192xf32>, tensor<8192xf32>) -> tensor<8192x8192xf32>
    %2 = fuse.exp %1 : tensor<8192x8192xf32>
    fuse.yield %2 : tensor<8192x8192xf32>
  }
  return %0 : tensor<8192x8192xf32>
}

// On the A100 (19.5 TFLOP/s FP32, 2039 GB/s) the same matmuls: the seed's
// takes 3.4x longer, and the ridge points move.
// A100: remark: kernel @matmul_seed_k0 (matmul): class compute, bound compute; 2147483648 FLOPs, 12582912 bytes, 170.67 FLOP/B (ridge 3.51); predicted 355.87 us (compute 352.97, memory 7.26, launch 2.90)
// A100: remark: kernel @matmul_small_vs_large_k0 (matmul): class compute, bound memory; 268435456 FLOPs, 33685504 bytes, 7.97 FLOP/B (ridge 126.01); predicted 22.34 us (compute 2.46, memory 19.44, launch 2.90)

// A target file overriding one field of a built-in target: half the HBM
// bandwidth doubles the memory time of the elementwise add.
// FILE: remark: kernel @elementwise_k0 (add): class memory, bound memory; 67108864 FLOPs, 536903680 bytes, 0.12 FLOP/B (ridge 26.27); predicted 266.09 us (compute 1.25, memory 263.19, launch 2.90)

