//===- LoopKernelTest.cpp - Loop kernels run on the host ------------------===//
//
// Loop kernels as convert-fuse-to-gpu emits them, run by the kernel
// interpreter on random inputs and compared with the reference interpreter
// at kernel precision: ragged rows, broadcast inputs whose rows end inside
// a vector (each lane in its vector's row or the next), rows shorter than
// a vector, two vectors a thread with clamped loads, grid-stride loops.
// Every load and store is bounds- and alignment-checked, and outputs start
// as NaN, so an element no thread writes fails too. The interpreter's own
// race and barrier checks on hand-written kernels close the file.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Analysis/Target.h"
#include "opfuse/Dialect/Fuse/IR/FuseAttributes.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Reference/Interpreter.h"
#include "opfuse/Reference/KernelInterpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>
#include <mutex>
#include <random>

using namespace mlir;
using namespace opfuse;

namespace {

/// What one kernel did on its inputs.
struct KernelRun {
  std::string error;
  int64_t grid = 0, block = 0;
  int64_t mismatches = 0;
  std::string firstMismatch;
};

const llvm::fltSemantics &semanticsOf(Type type) {
  if (type.isF16())
    return llvm::APFloat::IEEEhalf();
  if (type.isBF16())
    return llvm::APFloat::BFloat();
  return llvm::APFloat::IEEEsingle();
}

int64_t bytesOf(Type type) { return type.isF32() ? 4 : 2; }

class LoopKernelTest : public test::FuseTest {
protected:
  LoopKernelTest() {
    static std::once_flag registered;
    std::call_once(registered, [] { registerAllPasses(); });
  }

  /// Compiles the one function of `source` (whose ops fuse into one
  /// kernel) with convert-fuse-to-gpu's `options` for an H200 of `sms` SMs,
  /// runs the kernel on U(-1, 1) inputs and compares every output element
  /// with the reference.
  KernelRun run(StringRef source, StringRef options, int64_t sms = 4,
                unsigned seed = 1) {
    KernelRun result;
    func::FuncOp original = parseFirst<func::FuncOp>(source);
    if (!original) {
      result.error = "does not parse";
      return result;
    }
    OwningOpRef<ModuleOp> compiled = module->clone();
    GpuTarget target = *findBuiltinTarget("h200");
    target.smCount = sms;
    fuse::getFuseDialect(&context).getTargetAttrHelper().setAttr(
        *compiled, fuse::TargetAttr::get(&context, target));
    PassManager pm(&context, ModuleOp::getOperationName(),
                   OpPassManager::Nesting::Implicit);
    std::string pipeline = ("func.func(fuse-elementwise,fuse-outline-kernels),"
                            "convert-fuse-to-gpu{" +
                            options + "}")
                               .str();
    if (failed(parsePassPipeline(pipeline, pm)) || failed(pm.run(*compiled))) {
      result.error = "does not compile with " + pipeline;
      return result;
    }

    fuse::GroupOp group;
    int groups = 0;
    compiled->walk([&](fuse::GroupOp g) {
      group = g;
      ++groups;
    });
    if (groups != 1) {
      result.error = "compiles into " + std::to_string(groups) + " kernels";
      return result;
    }
    fuse::FuseDialect &dialect = fuse::getFuseDialect(&context);
    auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        group, dialect.getKernelAttrHelper().getAttr(group));
    result.grid = dialect.getGridAttrHelper().getAttr(group)[0];
    result.block = dialect.getBlockAttrHelper().getAttr(group)[0];

    SmallVector<reference::Tensor> arguments =
        test::uniformArguments(original, seed);

    // The kernel's buffers: the group's inputs (the function's arguments),
    // then its outputs, filled with NaN.
    std::vector<std::vector<uint8_t>> buffers;
    for (Value input : group.getOperands()) {
      auto argument = dyn_cast<BlockArgument>(input);
      if (!argument) {
        result.error = "a kernel input is not a function argument";
        return result;
      }
      const reference::Tensor &t = arguments[argument.getArgNumber()];
      std::vector<uint8_t> bytes(t.size() * bytesOf(t.elementType));
      for (int64_t i = 0; i < t.size(); ++i) {
        llvm::APFloat f(t.data[i]);
        bool lost;
        f.convert(semanticsOf(t.elementType),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
        const uint64_t raw = f.bitcastToAPInt().getZExtValue();
        std::memcpy(&bytes[i * bytesOf(t.elementType)], &raw,
                    bytesOf(t.elementType));
      }
      buffers.push_back(std::move(bytes));
    }
    for (Type type : group.getResultTypes()) {
      auto tensor = cast<RankedTensorType>(type);
      buffers.emplace_back(
          tensor.getNumElements() * bytesOf(tensor.getElementType()), 0xff);
    }
    result.error = reference::interpretKernel(kernel, {result.grid},
                                              result.block, buffers);
    if (!result.error.empty())
      return result;

    reference::Options precision;
    precision.kernelPrecision = true;
    auto want = reference::interpret(original, arguments, precision);
    if (failed(want)) {
      result.error = "the reference fails";
      return result;
    }
    auto returned = cast<func::ReturnOp>(
        group->getParentOfType<func::FuncOp>().getBody().front().back());
    for (auto [index, value] : llvm::enumerate(returned.getOperands())) {
      auto output = cast<OpResult>(value);
      const reference::Tensor &expected = (*want)[index];
      const std::vector<uint8_t> &bytes =
          buffers[group.getNumOperands() + output.getResultNumber()];
      Type type = expected.elementType;
      // One ulp of the output type (relative, at least that of 1): the
      // reference and the kernel may round an intermediate that is also an
      // output differently, or fuse a product into an fma. An element read
      // from the wrong place is off by about the inputs' size, U(-1, 1).
      const double tolerance = type.isBF16()  ? 0x1p-7
                               : type.isF16() ? 0x1p-10
                                              : 0x1p-22;
      for (int64_t i = 0; i < expected.size(); ++i) {
        uint64_t raw = 0;
        std::memcpy(&raw, &bytes[i * bytesOf(type)], bytesOf(type));
        const double got = llvm::APFloat(semanticsOf(type),
                                         llvm::APInt(bytesOf(type) * 8, raw))
                               .convertToDouble();
        const double w = expected.data[i];
        if (std::isnan(got) ||
            std::fabs(got - w) > tolerance * std::max(1.0, std::fabs(w))) {
          if (result.mismatches++ == 0)
            result.firstMismatch = "output #" + std::to_string(index) +
                                   " element " + std::to_string(i) + ": " +
                                   std::to_string(got) + ", expected " +
                                   std::to_string(w);
        }
      }
    }
    return result;
  }

  void expectExact(StringRef source, StringRef options, int64_t sms = 4) {
    KernelRun r = run(source, options, sms);
    EXPECT_EQ(r.error, "") << options.str() << "\n" << source.str();
    EXPECT_EQ(r.mismatches, 0) << r.firstMismatch << "\n"
                               << options.str() << "\n"
                               << source.str();
  }
};

constexpr StringLiteral kBias = R"mlir(
func.func @f(%x: tensor<3x1023xf32>, %b: tensor<1023xf32>) -> tensor<3x1023xf32> {
  %0 = fuse.add %x, %b : (tensor<3x1023xf32>, tensor<1023xf32>) -> tensor<3x1023xf32>
  return %0 : tensor<3x1023xf32>
})mlir";

constexpr StringLiteral kRowAndColumn = R"mlir(
func.func @f(%x: tensor<5x1001xbf16>, %r: tensor<5x1xbf16>, %c: tensor<1001xbf16>) -> tensor<5x1001xbf16> {
  %0 = fuse.mul %x, %r : (tensor<5x1001xbf16>, tensor<5x1xbf16>) -> tensor<5x1001xbf16>
  %1 = fuse.add %0, %c : (tensor<5x1001xbf16>, tensor<1001xbf16>) -> tensor<5x1001xbf16>
  return %1 : tensor<5x1001xbf16>
})mlir";

constexpr StringLiteral kMasked4d = R"mlir(
func.func @f(%x: tensor<2x3x5x77xf16>, %m: tensor<2x1x5x77xf16>) -> (tensor<2x3x5x77xf16>, tensor<2x3x5x77xf16>) {
  %0 = fuse.add %x, %m : (tensor<2x3x5x77xf16>, tensor<2x1x5x77xf16>) -> tensor<2x3x5x77xf16>
  %1 = fuse.sub %0, %x : (tensor<2x3x5x77xf16>, tensor<2x3x5x77xf16>) -> tensor<2x3x5x77xf16>
  return %0, %1 : tensor<2x3x5x77xf16>, tensor<2x3x5x77xf16>
})mlir";

constexpr StringLiteral kMiddle = R"mlir(
func.func @f(%x: tensor<7x5x9xf16>, %w: tensor<1x5x1xf16>) -> tensor<7x5x9xf16> {
  %0 = fuse.mul %x, %w : (tensor<7x5x9xf16>, tensor<1x5x1xf16>) -> tensor<7x5x9xf16>
  return %0 : tensor<7x5x9xf16>
})mlir";

constexpr StringLiteral kShortRows = R"mlir(
func.func @f(%x: tensor<1001x3xf32>, %w: tensor<3xf32>) -> tensor<1001x3xf32> {
  %0 = fuse.mul %x, %w : (tensor<1001x3xf32>, tensor<3xf32>) -> tensor<1001x3xf32>
  return %0 : tensor<1001x3xf32>
})mlir";

constexpr StringLiteral kRowsOfNine = R"mlir(
func.func @f(%x: tensor<13x9xbf16>, %b: tensor<9xbf16>) -> tensor<13x9xbf16> {
  %0 = fuse.sub %x, %b : (tensor<13x9xbf16>, tensor<9xbf16>) -> tensor<13x9xbf16>
  return %0 : tensor<13x9xbf16>
})mlir";

TEST_F(LoopKernelTest, BroadcastsAcrossRaggedRows) {
  for (StringRef source :
       {StringRef(kBias), StringRef(kRowAndColumn), StringRef(kMasked4d),
        StringRef(kMiddle), StringRef(kShortRows), StringRef(kRowsOfNine)})
    for (StringRef options : {"vectors-per-thread=1", "vectors-per-thread=2",
                              "vectors-per-thread=1 max-grid-blocks=1",
                              "vectors-per-thread=2 max-grid-blocks=3"})
      expectExact(source, options);
}

TEST_F(LoopKernelTest, TwoVectorsAThreadAcrossRows) {
  // 2 x 3 x 97 x 257 bf16 (18,696 vectors of 8) on one SM of 2,048 thread
  // slots: two vectors a thread, the last block's second vectors clamped.
  constexpr StringLiteral source = R"mlir(
func.func @f(%x: tensor<2x3x97x257xbf16>, %b: tensor<257xbf16>) -> tensor<2x3x97x257xbf16> {
  %0 = fuse.add %x, %b : (tensor<2x3x97x257xbf16>, tensor<257xbf16>) -> tensor<2x3x97x257xbf16>
  return %0 : tensor<2x3x97x257xbf16>
})mlir";
  KernelRun r = run(source, "vectors-per-thread=2", /*sms=*/1);
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.mismatches, 0) << r.firstMismatch;
  const int64_t vectors = 2 * 3 * 97 * 257 / 8;
  EXPECT_LT(r.grid * r.block, vectors) << "one vector a thread";
  EXPECT_GE(2 * r.grid * r.block, vectors);
}

TEST_F(LoopKernelTest, RandomBroadcastShapes) {
  // Shapes of rank 1-4 with dims of 1-11, an input broadcast along a random
  // set of them, f32, f16 or bf16, one or two vectors a thread, with and
  // without a grid-stride loop.
  std::mt19937 random(2026);
  const char *types[] = {"f32", "f16", "bf16"};
  const char *ops[] = {"add", "sub", "mul"};
  const char *options[] = {"vectors-per-thread=1", "vectors-per-thread=2",
                           "vectors-per-thread=2 max-grid-blocks=2"};
  for (int c = 0; c < 120; ++c) {
    const int rank = 1 + random() % 4;
    SmallVector<int64_t> shape, small;
    for (int d = 0; d < rank; ++d)
      shape.push_back(1 + random() % 11);
    for (int d = 0; d < rank; ++d)
      small.push_back(random() % 2 ? shape[d] : 1);
    const char *type = types[random() % 3];
    auto spell = [&](ArrayRef<int64_t> dims) {
      std::string s = "tensor<";
      for (int64_t d : dims)
        s += std::to_string(d) + "x";
      return s + type + ">";
    };
    const std::string full = spell(shape), part = spell(small);
    const std::string source =
        "func.func @f(%x: " + full + ", %y: " + part + ") -> " + full +
        " {\n  %0 = fuse." + ops[random() % 3] + " %x, %y : (" + full + ", " +
        part + ") -> " + full + "\n  return %0 : " + full + "\n}\n";
    expectExact(source, options[random() % 3]);
  }
}

TEST_F(LoopKernelTest, InterpreterCatchesOutOfBoundsReads) {
  // The interpreter itself: a kernel given a buffer too small for its input
  // stops at the load that leaves it.
  KernelRun ok = run(kBias, "vectors-per-thread=1");
  ASSERT_EQ(ok.error, "");
  func::FuncOp f = parseFirst<func::FuncOp>(kBias);
  ASSERT_TRUE(f);
  PassManager pm(&context, ModuleOp::getOperationName(),
                 OpPassManager::Nesting::Implicit);
  ASSERT_TRUE(succeeded(parsePassPipeline(
      "func.func(fuse-elementwise,fuse-outline-kernels),convert-fuse-to-gpu",
      pm)));
  ASSERT_TRUE(succeeded(pm.run(*module)));
  gpu::GPUFuncOp kernel;
  module->walk([&](gpu::GPUFuncOp k) { kernel = k; });
  ASSERT_TRUE(kernel);
  std::vector<std::vector<uint8_t>> buffers = {
      std::vector<uint8_t>(3 * 1023 * 4), std::vector<uint8_t>(1000 * 4),
      std::vector<uint8_t>(3 * 1023 * 4)};
  std::string error = reference::interpretKernel(kernel, {3}, 256, buffers);
  EXPECT_NE(error.find("of buffer 1, which holds 4000"), std::string::npos)
      << error;
}

} // namespace

namespace {

class KernelInterpreterTest : public test::FuseTest {
protected:
  /// Runs the kernel of `body` (threads of one block of 64 store 1 in a
  /// shared tile, then read their neighbour's element into `out`).
  std::string runTile(StringRef between, std::vector<uint8_t> &out) {
    std::string source = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @tile(%out: !llvm.ptr<1>)
        workgroup(%tile : memref<64xf32, #gpu.address_space<workgroup>>)
        kernel {
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      memref.store %one, %tile[%t] : memref<64xf32, #gpu.address_space<workgroup>>
)mlir" + between.str() + R"mlir(
      %c1 = arith.constant 1 : index
      %c63 = arith.constant 63 : index
      %next = arith.addi %t, %c1 : index
      %n = arith.minui %next, %c63 : index
      %v = memref.load %tile[%n] : memref<64xf32, #gpu.address_space<workgroup>>
      %i = arith.index_castui %t : index to i32
      %p = llvm.getelementptr %out[%i] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %v, %p {alignment = 4 : i64} : f32, !llvm.ptr<1>
      gpu.return
    }
  }
})mlir";
    auto kernel = parseFirst<gpu::GPUFuncOp>(source);
    if (!kernel)
      return "does not parse";
    std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(256)};
    std::string error = reference::interpretKernel(kernel, {1}, 64, buffers);
    out = buffers[0];
    return error;
  }
};

TEST_F(KernelInterpreterTest, ReportsARaceOnSharedMemory) {
  // Without a barrier thread 0 reads what thread 1 wrote: lockstep
  // execution would give the right value, the GPU need not.
  std::vector<uint8_t> out;
  std::string error = runTile("", out);
  EXPECT_NE(error.find("thread 0 of block (0, 0, 0): 'memref.load' reads an "
                       "element thread 1 wrote since the last barrier"),
            std::string::npos)
      << error;
}

TEST_F(KernelInterpreterTest, ABarrierOrdersSharedMemory) {
  std::vector<uint8_t> out;
  EXPECT_EQ(runTile("      gpu.barrier\n", out), "");
  float first;
  std::memcpy(&first, out.data(), 4);
  EXPECT_EQ(first, 1.0f);
}

class AsyncCopyTest : public KernelInterpreterTest {
protected:
  /// Runs a block of 32 threads that cp.async 16 bytes each of `in` into
  /// dynamic shared memory, then (after `between`) read their neighbour's
  /// 16 bytes back and store them to `out`.
  std::string runAsyncCopy(StringRef between, std::vector<uint8_t> &out) {
    std::string source = R"mlir(
module attributes {gpu.container_module} {
  gpu.module @m {
    llvm.mlir.global external @opfuse_dynamic_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    gpu.func @copy(%in: !llvm.ptr<1>, %out: !llvm.ptr<1>) kernel {
      %s = llvm.mlir.addressof @opfuse_dynamic_shared : !llvm.ptr<3>
      %tid = gpu.thread_id x
      %t = arith.index_castui %tid : index to i32
      %c1 = arith.constant 1 : i32
      %c31 = arith.constant 31 : i32
      %four = arith.constant 4 : i32
      %e = arith.muli %t, %four : i32
      %src = llvm.getelementptr %in[%e] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      %dst = llvm.getelementptr %s[%e] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
      nvvm.cp.async.shared.global %dst, %src, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>
      nvvm.cp.async.commit.group
)mlir" + between.str() + R"mlir(
      %next = arith.addi %t, %c1 : i32
      %n = arith.minui %next, %c31 : i32
      %ne = arith.muli %n, %four : i32
      %from = llvm.getelementptr %s[%ne] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
      %v = llvm.load %from {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
      %to = llvm.getelementptr %out[%e] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
      llvm.store %v, %to {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
      gpu.return
    }
  }
})mlir";
    auto kernel = parseFirst<gpu::GPUFuncOp>(source);
    if (!kernel)
      return "does not parse";
    std::vector<uint8_t> in(512);
    for (int i = 0; i < 128; ++i) {
      const float value = i;
      std::memcpy(in.data() + 4 * i, &value, 4);
    }
    std::vector<std::vector<uint8_t>> buffers = {in, std::vector<uint8_t>(512)};
    std::string error = reference::interpretKernel(kernel, {1}, 32, buffers,
                                                   /*sharedBytes=*/512);
    out = buffers[1];
    return error;
  }
};

TEST_F(AsyncCopyTest, AsyncCopiesLandAtTheirWaitAndNeedABarrier) {
  std::vector<uint8_t> out;
  // Waited for and ordered by a barrier: thread 0 reads thread 1's 4.0.
  EXPECT_EQ(runAsyncCopy("      nvvm.cp.async.wait.group 0\n"
                         "      gpu.barrier\n",
                         out),
            "");
  float first;
  std::memcpy(&first, out.data(), 4);
  EXPECT_EQ(first, 4.0f);
  // Without the barrier: thread 1's copy landed at its own wait, in the
  // interval thread 0 reads it.
  std::string error = runAsyncCopy("      nvvm.cp.async.wait.group 0\n", out);
  EXPECT_NE(error.find("'llvm.load' reads an element thread 1 wrote since "
                       "the last barrier"),
            std::string::npos)
      << error;
  // Without the wait the copies have not landed: the shared memory still
  // holds garbage (0xff bytes, NaN) when it is read.
  EXPECT_EQ(runAsyncCopy("      gpu.barrier\n", out), "");
  std::memcpy(&first, out.data(), 4);
  EXPECT_TRUE(std::isnan(first));
}

TEST_F(KernelInterpreterTest, RefusesABarrierOfSomeThreads) {
  std::vector<uint8_t> out;
  std::string error = runTile(R"mlir(
      %c32 = arith.constant 32 : index
      %low = arith.cmpi ult, %t, %c32 : index
      scf.if %low {
        gpu.barrier
      }
)mlir",
                              out);
  EXPECT_NE(error.find("'gpu.barrier' is reached by some threads of the block "
                       "only"),
            std::string::npos)
      << error;
}

} // namespace
