//===- GpuReferenceTest.cpp - --check's matmuls off the host --------------===//
//
// The DGEMM calls that put the reference's row-major batched matmuls on
// cuBLAS, run here by a column-major DGEMM on the host: they must give the
// interpreter's own f64 results for every transpose and broadcast batch.
// The interpreter's offload hook and progress callback, with a stand-in
// offload. And the estimate --check prints before a long reference.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "../../lib/Driver/CheckTolerance.h"
#include "../../lib/Driver/GpuReference.h"
#include "../../lib/Driver/ReferenceCost.h"

#include "opfuse/Reference/Interpreter.h"

#include <cmath>

using namespace mlir;
using namespace opfuse;
using reference::Tensor;

namespace {

/// cuBLAS's DGEMM on the host: column-major C (m x n) = op(X) op(Y).
void hostDgemm(const DgemmCall &c, const double *x, const double *y,
               double *out) {
  for (int j = 0; j < c.n; ++j)
    for (int i = 0; i < c.m; ++i) {
      double sum = 0;
      for (int l = 0; l < c.k; ++l) {
        double xv = c.transposeX ? x[c.xOffset + l + i * c.ldx]
                                 : x[c.xOffset + i + l * c.ldx];
        double yv = c.transposeY ? y[c.yOffset + j + l * c.ldy]
                                 : y[c.yOffset + l + j * c.ldy];
        sum += xv * yv;
      }
      out[c.cOffset + i + j * c.ldc] = sum;
    }
}

/// Takes every matmul and runs the planned DGEMMs on the host.
struct HostDgemmOffload : reference::ContractionOffload {
  int taken = 0;
  bool matmul(const reference::MatmulOperands &p) override {
    for (const DgemmCall &call : planDgemms(p))
      hostDgemm(call, p.b, p.a, p.out);
    ++taken;
    return true;
  }
};

class GpuReferenceTest : public opfuse::test::FuseTest {
protected:
  FailureOr<SmallVector<Tensor>> run(func::FuncOp func,
                                     reference::ContractionOffload *offload) {
    SmallVector<Tensor> args;
    uint64_t state = 7;
    for (Type type : func.getArgumentTypes()) {
      auto tensor = cast<RankedTensorType>(type);
      Tensor t;
      t.elementType = tensor.getElementType();
      t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      t.data.resize(tensor.getNumElements());
      for (double &v : t.data) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        v = static_cast<double>(state >> 40) / (1 << 24) - 0.5;
      }
      args.push_back(std::move(t));
    }
    reference::Options options;
    options.f64Accumulation = true;
    options.offload = offload;
    return reference::interpret(func, args, options);
  }
};

TEST_F(GpuReferenceTest, PlannedDgemmsGiveTheInterpretersMatmuls) {
  // Every transpose combination, a broadcast batch on each side, ragged
  // sizes.
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%a: tensor<3x7x5xf32>, %b: tensor<5x11xf32>,
                 %at: tensor<5x7xf32>, %bt: tensor<2x1x11x5xf32>) ->
        (tensor<3x7x11xf32>, tensor<7x11xf32>, tensor<2x3x7x11xf32>) {
      %0 = fuse.matmul %a, %b : (tensor<3x7x5xf32>, tensor<5x11xf32>) -> tensor<3x7x11xf32>
      %1 = fuse.matmul %at, %b transpose_a : (tensor<5x7xf32>, tensor<5x11xf32>) -> tensor<7x11xf32>
      %2 = fuse.matmul %a, %bt transpose_b : (tensor<3x7x5xf32>, tensor<2x1x11x5xf32>) -> tensor<2x3x7x11xf32>
      return %0, %1, %2 : tensor<3x7x11xf32>, tensor<7x11xf32>, tensor<2x3x7x11xf32>
    })mlir");
  ASSERT_TRUE(func);
  FailureOr<SmallVector<Tensor>> host = run(func, nullptr);
  HostDgemmOffload offload;
  FailureOr<SmallVector<Tensor>> planned = run(func, &offload);
  ASSERT_TRUE(succeeded(host) && succeeded(planned));
  EXPECT_EQ(offload.taken, 3);
  for (auto [want, got] : llvm::zip(*host, *planned)) {
    ASSERT_EQ(want.data.size(), got.data.size());
    for (size_t i = 0; i < want.data.size(); ++i)
      EXPECT_NEAR(got.data[i], want.data[i], 1e-6) << "element " << i;
  }
}

TEST_F(GpuReferenceTest, AndBothTransposed) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%a: tensor<4x9x6xf32>, %b: tensor<4x13x9xf32>) -> tensor<4x6x13xf32> {
      %0 = fuse.matmul %a, %b transpose_a transpose_b : (tensor<4x9x6xf32>, tensor<4x13x9xf32>) -> tensor<4x6x13xf32>
      return %0 : tensor<4x6x13xf32>
    })mlir");
  ASSERT_TRUE(func);
  FailureOr<SmallVector<Tensor>> host = run(func, nullptr);
  HostDgemmOffload offload;
  FailureOr<SmallVector<Tensor>> planned = run(func, &offload);
  ASSERT_TRUE(succeeded(host) && succeeded(planned));
  for (size_t i = 0; i < (*host)[0].data.size(); ++i)
    EXPECT_NEAR((*planned)[0].data[i], (*host)[0].data[i], 1e-6) << i;
}

/// Declines everything, counting what it was offered.
struct DecliningOffload : reference::ContractionOffload {
  int offered = 0;
  bool matmul(const reference::MatmulOperands &) override {
    ++offered;
    return false;
  }
};

TEST_F(GpuReferenceTest, OnlyF64MatmulsAreOfferedAndProgressCountsOps) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {
      %0 = fuse.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
      %1 = fuse.exp %0 : tensor<4x3xf32>
      %2 = fuse.neg %1 : tensor<4x3xf32>
      return %2 : tensor<4x3xf32>
    })mlir");
  ASSERT_TRUE(func);
  SmallVector<Tensor> args(2);
  for (auto [t, type] : llvm::zip(args, func.getArgumentTypes())) {
    auto tensor = cast<RankedTensorType>(type);
    t.elementType = tensor.getElementType();
    t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    t.data.assign(tensor.getNumElements(), 0.5);
  }
  DecliningOffload offload;
  std::vector<std::pair<int64_t, int64_t>> steps;
  reference::Options options;
  options.offload = &offload;
  options.progress = [&](int64_t done, int64_t total) {
    steps.push_back({done, total});
  };
  // f32 sums round after every addition: nothing the GPU's DGEMM does.
  ASSERT_TRUE(succeeded(reference::interpret(func, args, options)));
  EXPECT_EQ(offload.offered, 0);
  options.f64Accumulation = true;
  FailureOr<SmallVector<Tensor>> out =
      reference::interpret(func, args, options);
  ASSERT_TRUE(succeeded(out));
  EXPECT_EQ(offload.offered, 1);
  // Declined: the host computed it (8 x 0.25 = 2, -exp(2)).
  EXPECT_DOUBLE_EQ((*out)[0].data[0],
                   -static_cast<double>(static_cast<float>(std::exp(2.0))));
  ASSERT_EQ(steps.size(), 6u);
  EXPECT_EQ(steps[2], std::make_pair(int64_t(3), int64_t(3)));
}

TEST_F(GpuReferenceTest, EstimateCountsElementsAndSplitsMatmuls) {
  func::FuncOp func = parseFirst<func::FuncOp>(R"mlir(
    func.func @f(%x: tensor<8192x4096xbf16>, %w: tensor<4096x11008xbf16>,
                 %s: tensor<4x8xf32>, %t: tensor<8x2xf32>) ->
        (tensor<8192x11008xbf16>, tensor<4x2xf32>) {
      %0 = fuse.matmul %x, %w : (tensor<8192x4096xbf16>, tensor<4096x11008xbf16>) -> tensor<8192x11008xbf16>
      %1 = fuse.gelu %0 approximate = tanh : tensor<8192x11008xbf16>
      %2 = fuse.matmul %s, %t : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
      return %1, %2 : tensor<8192x11008xbf16>, tensor<4x2xf32>
    })mlir");
  ASSERT_TRUE(func);
  ReferenceWork work = referenceWork(func);
  EXPECT_DOUBLE_EQ(work.elements, 8192.0 * 11008);
  EXPECT_DOUBLE_EQ(work.offloadableMultiplyAdds, 8192.0 * 11008 * 4096);
  EXPECT_DOUBLE_EQ(work.hostMultiplyAdds, 4.0 * 2 * 8);
  // 370 G multiply-adds: minutes on 16 host threads, seconds on the GPU.
  const double host = estimateReferenceSeconds(work, false, 16);
  const double gpu = estimateReferenceSeconds(work, true, 16);
  EXPECT_GT(host, 5 * gpu);
  EXPECT_GT(host, 10.0);
  std::string text = describeReferenceCost(work, false, 16);
  EXPECT_NE(text.find("TFLOP of contractions on 16 host threads"),
            std::string::npos)
      << text;
  EXPECT_EQ(describeReferenceCost(work, true, 16, /*threshold=*/1e9), "");
  std::string gpuText = describeReferenceCost(work, true, 16, 0);
  EXPECT_NE(gpuText.find("0.7 TFLOP of matmuls on the GPU"), std::string::npos)
      << gpuText;
}

TEST(UnitInLastPlaceTest, HalfTypes) {
  EXPECT_EQ(unitInLastPlace(DType::BF16, 1.0), std::ldexp(1.0, -7));
  EXPECT_EQ(unitInLastPlace(DType::BF16, 1.99), std::ldexp(1.0, -7));
  EXPECT_EQ(unitInLastPlace(DType::BF16, 2.0), std::ldexp(1.0, -6));
  EXPECT_EQ(unitInLastPlace(DType::F16, 1.0), std::ldexp(1.0, -10));
  EXPECT_EQ(unitInLastPlace(DType::F16, 0.75), std::ldexp(1.0, -11));
  // Subnormal spacing at and below the smallest normal, and at zero.
  EXPECT_EQ(unitInLastPlace(DType::F16, 1e-6), std::ldexp(1.0, -24));
  EXPECT_EQ(unitInLastPlace(DType::F16, 0.0), std::ldexp(1.0, -24));
  EXPECT_EQ(unitInLastPlace(DType::BF16, 0.0), std::ldexp(1.0, -133));
}

} // namespace
