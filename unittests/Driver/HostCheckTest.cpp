//===- HostCheckTest.cpp - --check-on-host's verdicts ---------------------===//
//
// checkOnHost on a model compiled as opt-fuse compiles it: a correct kernel
// passes, and a kernel made to store past its output (as a wrong index
// would) stops the run with exit 6 and the interpreter's message instead of
// writing into another buffer.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Driver/GpuRun.h"
#include "../Dialect/FuseTestUtils.h"

#include "opfuse/Driver/ExitCodes.h"
#include "opfuse/Pipeline/Pipeline.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace opfuse;

namespace {

class HostCheckTest : public test::FuseTest {
protected:
  /// Compiles `module` (parsed) into `fused` and `compiled` as the driver
  /// does for --check-on-host.
  void compile() {
    CompileOptions options;
    options.binary = false;
    fused = module->clone();
    PassManager fusion(&context);
    buildFusionPasses(fusion, options);
    ASSERT_TRUE(succeeded(fusion.run(*fused)));
    compiled = fused->clone();
    PassManager emission(&context);
    buildKernelEmissionPasses(emission, options);
    ASSERT_TRUE(succeeded(emission.run(*compiled)));
  }

  OwningOpRef<ModuleOp> fused, compiled;
};

constexpr StringLiteral kModel = R"mlir(
func.func @f(%x: tensor<3x1023xf32>, %b: tensor<1023xf32>) -> tensor<3x1023xf32> {
  %0 = fuse.add %x, %b : (tensor<3x1023xf32>, tensor<1023xf32>) -> tensor<3x1023xf32>
  return %0 : tensor<3x1023xf32>
})mlir";

TEST_F(HostCheckTest, PassesACorrectKernel) {
  ASSERT_TRUE(parseFirst<func::FuncOp>(kModel));
  compile();
  DriverOptions options;
  EXPECT_EQ(checkOnHost(options, *module, *fused, *compiled), ExitSuccess);
}

TEST_F(HostCheckTest, StopsAKernelThatStoresOutOfBounds) {
  ASSERT_TRUE(parseFirst<func::FuncOp>(kModel));
  compile();
  // Every store of the kernel moves 2^20 elements past its place.
  compiled->walk([&](LLVM::StoreOp store) {
    OpBuilder b(store);
    Value far = arith::ConstantOp::create(b, store.getLoc(),
                                          b.getI32IntegerAttr(1 << 20));
    Value address = LLVM::GEPOp::create(
        b, store.getLoc(), store.getAddr().getType(),
        store.getValue().getType(), store.getAddr(), ValueRange{far});
    store.getAddrMutable().assign(address);
  });
  DriverOptions options;
  llvm::outs().flush();
  testing::internal::CaptureStdout();
  const int code = checkOnHost(options, *module, *fused, *compiled);
  llvm::outs().flush();
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, ExitCheckFailed);
  EXPECT_NE(out.find("check on host: FAIL: kernel @f_k0: thread 0 of block "
                     "(0, 0, 0): 'llvm.store' accesses bytes"),
            std::string::npos)
      << out;
}

} // namespace
