//===- CalibrationKernels.cpp - PTX of the calibration microbenchmarks ----===//
//
// Written in PTX so they measure the hardware, not a compiler: every loop is
// unrolled here, loads bypass L1 (.cg) so the L2 benchmark reads L2, and
// every result is stored so ptxas keeps the work.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Calibrate.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

namespace opfuse {

namespace {
constexpr const char *kHeader = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry opfuse_cal_empty()
{
  ret;
}

// Thread t copies 16-byte vectors t and t + half from src to dst, loads
// first, `repeat` times over.
.visible .entry opfuse_cal_copy(.param .u64 src, .param .u64 dst,
                                .param .u64 half, .param .u32 repeat)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [src];
  ld.param.u64 %rd2, [dst];
  ld.param.u64 %rd3, [half];
  ld.param.u32 %r12, [repeat];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd4, %r1, %r2;
  cvt.u64.u32 %rd5, %r3;
  add.u64 %rd4, %rd4, %rd5;
  setp.ge.u64 %p1, %rd4, %rd3;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  shl.b64 %rd6, %rd4, 4;
  shl.b64 %rd7, %rd3, 4;
  add.u64 %rd8, %rd1, %rd6;
  add.u64 %rd9, %rd8, %rd7;
  add.u64 %rd10, %rd2, %rd6;
  add.u64 %rd11, %rd10, %rd7;
  mov.u32 %r13, 0;
LOOP:
  ld.global.cg.v4.u32 {%r4, %r5, %r6, %r7}, [%rd8];
  ld.global.cg.v4.u32 {%r8, %r9, %r10, %r11}, [%rd9];
  st.global.v4.u32 [%rd10], {%r4, %r5, %r6, %r7};
  st.global.v4.u32 [%rd11], {%r8, %r9, %r10, %r11};
  add.u32 %r13, %r13, 1;
  setp.lt.u32 %p2, %r13, %r12;
  @%p2 bra LOOP;
DONE:
  ret;
}
)";

/// Stores the sum of `count` f32 registers named `prefix`0.. at out[tid].
void storeSum(llvm::raw_ostream &os, const char *prefix, int count) {
  os << "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %ntid.x;\n"
        "  mov.u32 %r4, %tid.x;\n  mad.lo.u32 %r5, %r2, %r3, %r4;\n";
  for (int i = 1; i < count; ++i)
    os << llvm::formatv("  add.f32 {0}0, {0}0, {0}{1};\n", prefix, i);
  os << "  cvta.to.global.u64 %rd1, %rd1;\n"
        "  mul.wide.u32 %rd2, %r5, 4;\n  add.u64 %rd3, %rd1, %rd2;\n";
  os << llvm::formatv("  st.global.f32 [%rd3], {0}0;\n", prefix);
}

void loopControl(llvm::raw_ostream &os) {
  os << "  add.u32 %r6, %r6, 1;\n  setp.lt.u32 %p1, %r6, %r1;\n"
        "  @%p1 bra LOOP;\n";
}

/// 8 independent FMA chains per thread, 64 FMAs per loop iteration.
void writeFmaKernel(llvm::raw_ostream &os) {
  os << R"(
// Each thread runs 8 independent chains of fma.rn.f32; `iters` loop
// iterations of 64 FMAs (128 FLOPs).
.visible .entry opfuse_cal_fma(.param .u64 out, .param .u32 iters,
                               .param .f32 b, .param .f32 c)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<8>;
  .reg .f32 %k<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  ld.param.f32 %k0, [b];
  ld.param.f32 %k1, [c];
  mov.u32 %r7, %tid.x;
  cvt.rn.f32.u32 %f0, %r7;
)";
  for (int i = 1; i < 8; ++i)
    os << llvm::formatv("  add.f32 %f{0}, %f0, 0f{1:X-8};\n", i,
                        0x3f800000u + (i << 20));
  os << "  mov.u32 %r6, 0;\nLOOP:\n";
  for (int round = 0; round < 8; ++round)
    for (int i = 0; i < 8; ++i)
      os << llvm::formatv("  fma.rn.f32 %f{0}, %f{0}, %k0, %k1;\n", i);
  loopControl(os);
  storeSum(os, "%f", 8);
  os << "  ret;\n}\n";
}

/// Tensor-core throughput with register operands only: 8 independent
/// accumulator tiles per warp, 32 mma.sync per loop iteration.
void writeMmaKernel(llvm::raw_ostream &os, const char *name, const char *shape,
                    const char *types, unsigned aBits) {
  os << llvm::formatv(R"(
.visible .entry {0}(.param .u64 out, .param .u32 iters)
{{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b32 %a<4>;
  .reg .b32 %b<2>;
  .reg .f32 %c<32>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
)",
                      name);
  for (int i = 0; i < 4; ++i)
    os << llvm::formatv("  mov.b32 %a{0}, 0x{1:X-8};\n", i, aBits);
  for (int i = 0; i < 2; ++i)
    os << llvm::formatv("  mov.b32 %b{0}, 0x{1:X-8};\n", i, aBits);
  for (int i = 0; i < 32; ++i)
    os << llvm::formatv("  mov.f32 %c{0}, 0f00000000;\n", i);
  os << "  mov.u32 %r6, 0;\nLOOP:\n";
  for (int round = 0; round < 4; ++round)
    for (int tile = 0; tile < 8; ++tile) {
      int c = tile * 4;
      os << llvm::formatv(
          "  mma.sync.aligned.{0}.row.col.f32.{1}.f32 {{%c{2}, %c{3}, %c{4}, "
          "%c{5}}, {{%a0, %a1, %a2, %a3}, {{%b0, %b1}, {{%c{2}, %c{3}, "
          "%c{4}, %c{5}};\n",
          shape, types, c, c + 1, c + 2, c + 3);
    }
  loopControl(os);
  storeSum(os, "%c", 32);
  os << "  ret;\n}\n";
}
} // namespace

std::string calibrationPtx() {
  std::string ptx = kHeader;
  llvm::raw_string_ostream os(ptx);
  writeFmaKernel(os);
  // 2^-7 in each bf16 half, and as a TF32 (an f32 bit pattern): products
  // stay small however long the loop runs.
  writeMmaKernel(os, "opfuse_cal_mma_bf16", "m16n8k16", "bf16.bf16",
                 0x3c003c00u);
  writeMmaKernel(os, "opfuse_cal_mma_tf32", "m16n8k8", "tf32.tf32",
                 0x3c000000u);
  return ptx;
}

} // namespace opfuse
