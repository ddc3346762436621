//===- OperatorClassTest.cpp - Every op carries exactly one class ---------===//
//
// Walks the registered fuse ops, so an op added without a class trait or a
// CostInterface fails here rather than in the cost model.
//
//===----------------------------------------------------------------------===//

#include "FuseTestUtils.h"

#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace {

class OperatorClassTest : public opfuse::test::FuseTest {
protected:
  std::vector<RegisteredOperationName> fuseOps() {
    std::vector<RegisteredOperationName> ops;
    for (RegisteredOperationName name : context.getRegisteredOperations())
      if (name.getDialectNamespace() == "fuse")
        ops.push_back(name);
    return ops;
  }
};

// Structural ops: a group takes the class of its contents.
const llvm::StringSet<> kStructural = {"fuse.group", "fuse.yield"};

TEST_F(OperatorClassTest, ExactlyOneClassPerComputationalOp) {
  std::vector<RegisteredOperationName> ops = fuseOps();
  // Every registered fuse op, group and yield included: a new op must be
  // given its class here on purpose (fuse.sin and fuse.cos made 46).
  ASSERT_EQ(ops.size(), 46u) << "an op was added or lost: update this count";
  for (RegisteredOperationName name : ops) {
    const int classes = name.hasTrait<ComputeBound>() +
                        name.hasTrait<MemoryBound>() +
                        name.hasTrait<CommunicationBound>();
    if (kStructural.contains(name.getStringRef()))
      EXPECT_EQ(classes, 0) << name.getStringRef().str();
    else
      EXPECT_EQ(classes, 1) << name.getStringRef().str();
  }
}

TEST_F(OperatorClassTest, EveryOpButYieldHasACost) {
  for (RegisteredOperationName name : fuseOps())
    EXPECT_EQ(name.hasInterface<CostInterface>(),
              name.getStringRef() != "fuse.yield")
        << name.getStringRef().str();
}

TEST_F(OperatorClassTest, ClassesMatchTheDesign) {
  const llvm::StringSet<> compute = {"fuse.matmul", "fuse.conv2d",
                                     "fuse.attention"};
  const llvm::StringSet<> communication = {"fuse.all_reduce", "fuse.all_gather",
                                           "fuse.reduce_scatter"};
  for (RegisteredOperationName name : fuseOps()) {
    StringRef op = name.getStringRef();
    if (kStructural.contains(op))
      continue;
    EXPECT_EQ(name.hasTrait<ComputeBound>(), compute.contains(op)) << op.str();
    EXPECT_EQ(name.hasTrait<CommunicationBound>(), communication.contains(op))
        << op.str();
  }
}

TEST_F(OperatorClassTest, GetOperatorClassReadsTheTrait) {
  auto matmul = parseFirst<MatmulOp>(
      "func.func @f(%a: tensor<2x2xf32>) {\n"
      "  %0 = fuse.matmul %a, %a : (tensor<2x2xf32>, tensor<2x2xf32>) -> "
      "tensor<2x2xf32>\n  return\n}\n");
  ASSERT_TRUE(matmul);
  EXPECT_EQ(getOperatorClass(matmul), OperatorClass::Compute);
  EXPECT_EQ(stringifyOperatorClass(*getOperatorClass(matmul)), "compute");
  auto reduce = parseFirst<AllReduceOp>(
      "func.func @f(%a: tensor<2xf32>) {\n"
      "  %0 = fuse.all_reduce sum, %a devices = 2 : tensor<2xf32>\n"
      "  return\n}\n");
  ASSERT_TRUE(reduce);
  EXPECT_EQ(getOperatorClass(reduce), OperatorClass::Communication);
  auto relu = parseFirst<ReluOp>("func.func @f(%a: tensor<2xf32>) {\n"
                                 "  %0 = fuse.relu %a : tensor<2xf32>\n"
                                 "  return\n}\n");
  ASSERT_TRUE(relu);
  EXPECT_EQ(getOperatorClass(relu), OperatorClass::Memory);
}

} // namespace
