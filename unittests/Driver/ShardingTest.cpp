//===- ShardingTest.cpp - Each device's slice of a global tensor ----------===//
//
// The inputs of an SPMD run: a sharded argument's global tensor is cut
// along its axis into one contiguous slice a device, in device order; a
// replicated one is copied whole; the global shapes are the local ones
// with each sharded axis N times as long.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/FuseTestUtils.h"

#include "../../lib/Driver/Sharding.h"
#include "opfuse/Reference/Interpreter.h"
#include "opfuse/Runtime/Spmd.h"

#include <cmath>

using namespace mlir;
using namespace opfuse;
using opfuse::reference::Tensor;

namespace {

class ShardingTest : public opfuse::test::FuseTest {};

HostBuffer iota(const std::vector<int64_t> &shape) {
  HostBuffer buffer = makeHostBuffer(DType::F32, shape);
  for (int64_t i = 0; i < buffer.elements(); ++i)
    buffer.set(i, i);
  return buffer;
}

std::vector<double> values(const HostBuffer &buffer) {
  std::vector<double> out;
  for (int64_t i = 0; i < buffer.elements(); ++i)
    out.push_back(buffer.get(i));
  return out;
}

TEST_F(ShardingTest, SlicesAlongTheShardAxisInDeviceOrder) {
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%a: tensor<2x2xf32> {fuse.shard = 1 : i64},
                 %b: tensor<1x4xf32> {fuse.shard = 0 : i64},
                 %c: tensor<3xf32>) {
      return
    })");
  ASSERT_TRUE(func);
  EXPECT_EQ(shardAxis(func, 0), std::optional<int64_t>(1));
  EXPECT_EQ(shardAxis(func, 1), std::optional<int64_t>(0));
  EXPECT_EQ(shardAxis(func, 2), std::nullopt);
  const std::vector<int64_t> axes = shardAxes(func);
  EXPECT_EQ(axes, (std::vector<int64_t>{1, 0, -1}));

  std::vector<PlanBuffer> local(3);
  local[0].shape = {2, 2};
  local[1].shape = {1, 4};
  local[2].shape = {3};
  std::vector<PlanBuffer> global = globalInputSpecs(local, axes, 2);
  EXPECT_EQ(global[0].shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(global[1].shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(global[2].shape, (std::vector<int64_t>{3}));

  // a = [[0 1 2 3], [4 5 6 7]] by columns, b = the same by rows, c whole.
  std::vector<std::vector<HostBuffer>> devices =
      shardInputs({iota({2, 4}), iota({2, 4}), iota({3})}, axes, 2);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0][0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(values(devices[0][0]), (std::vector<double>{0, 1, 4, 5}));
  EXPECT_EQ(values(devices[1][0]), (std::vector<double>{2, 3, 6, 7}));
  EXPECT_EQ(values(devices[0][1]), (std::vector<double>{0, 1, 2, 3}));
  EXPECT_EQ(values(devices[1][1]), (std::vector<double>{4, 5, 6, 7}));
  EXPECT_EQ(values(devices[0][2]), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(values(devices[1][2]), (std::vector<double>{0, 1, 2}));
}

/// `buffer` as a reference tensor of f32.
reference::Tensor toTensor(MLIRContext *context, const HostBuffer &buffer) {
  reference::Tensor tensor;
  tensor.elementType = Float32Type::get(context);
  tensor.shape.assign(buffer.shape.begin(), buffer.shape.end());
  tensor.data = values(buffer);
  return tensor;
}

TEST_F(ShardingTest, TensorParallelMlpEqualsTheUnshardedOne) {
  // Megatron's split, as examples/allreduce_mlp.mlir writes it for 8
  // devices, here for 2: W1 by columns (and b1 with it), W2 by rows, the
  // partial products summed by the all_reduce. Each device's output must
  // be the unsharded MLP's on the same global tensors.
  auto tp = parseFirst<func::FuncOp>(R"(
    func.func @tp(%x: tensor<4x6xf32>,
                  %w1: tensor<6x3xf32> {fuse.shard = 1 : i64},
                  %b1: tensor<3xf32> {fuse.shard = 0 : i64},
                  %w2: tensor<3x6xf32> {fuse.shard = 0 : i64},
                  %b2: tensor<6xf32>) -> tensor<4x6xf32> {
      %0 = fuse.matmul %x, %w1 : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
      %1 = fuse.add %0, %b1 : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
      %2 = fuse.gelu %1 approximate = none : tensor<4x3xf32>
      %3 = fuse.matmul %2, %w2 : (tensor<4x3xf32>, tensor<3x6xf32>) -> tensor<4x6xf32>
      %4 = fuse.all_reduce sum, %3 devices = 2 : tensor<4x6xf32>
      %5 = fuse.add %4, %b2 : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
      %6 = fuse.add %5, %x : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
      return %6 : tensor<4x6xf32>
    }
    func.func @whole(%x: tensor<4x6xf32>, %w1: tensor<6x6xf32>,
                     %b1: tensor<6xf32>, %w2: tensor<6x6xf32>,
                     %b2: tensor<6xf32>) -> tensor<4x6xf32> {
      %0 = fuse.matmul %x, %w1 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
      %1 = fuse.add %0, %b1 : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
      %2 = fuse.gelu %1 approximate = none : tensor<4x6xf32>
      %3 = fuse.matmul %2, %w2 : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
      %5 = fuse.add %3, %b2 : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
      %6 = fuse.add %5, %x : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
      return %6 : tensor<4x6xf32>
    })");
  ASSERT_TRUE(tp);
  auto whole = module->lookupSymbol<func::FuncOp>("whole");
  ASSERT_TRUE(whole);
  // The global tensors, from the local shapes and the shard axes.
  std::vector<PlanBuffer> local(5);
  for (auto [spec, type] : llvm::zip(local, tp.getArgumentTypes())) {
    auto tensor = cast<RankedTensorType>(type);
    spec.dtype = DType::F32;
    spec.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  }
  const std::vector<int64_t> axes = shardAxes(tp);
  std::vector<HostBuffer> global;
  for (const PlanBuffer &spec : globalInputSpecs(local, axes, 2)) {
    HostBuffer buffer = makeHostBuffer(DType::F32, spec.shape);
    for (int64_t i = 0; i < buffer.elements(); ++i)
      buffer.set(i, std::sin(0.7 * i + global.size()));
    global.push_back(std::move(buffer));
  }
  SmallVector<Tensor> wholeArguments;
  for (const HostBuffer &buffer : global)
    wholeArguments.push_back(toTensor(&context, buffer));
  FailureOr<SmallVector<Tensor>> want =
      reference::interpret(whole, wholeArguments);
  ASSERT_TRUE(succeeded(want));

  SmallVector<SmallVector<Tensor>> perDevice;
  for (const std::vector<HostBuffer> &device : shardInputs(global, axes, 2)) {
    perDevice.emplace_back();
    for (const HostBuffer &buffer : device)
      perDevice.back().push_back(toTensor(&context, buffer));
  }
  FailureOr<SmallVector<SmallVector<Tensor>>> got =
      reference::interpretSpmd(tp, perDevice);
  ASSERT_TRUE(succeeded(got));
  for (const SmallVector<Tensor> &device : *got) {
    ASSERT_EQ(device.front().size(), want->front().size());
    for (int64_t i = 0; i < device.front().size(); ++i)
      // Partial sums of 3 then 2, against sums of 6: f32 rounding apart.
      EXPECT_NEAR(device.front().data[i], want->front().data[i], 1e-5)
          << "element " << i;
  }
}

TEST_F(ShardingTest, CollectivesMustSpanTheRunsDevices) {
  auto func = parseFirst<func::FuncOp>(R"(
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = fuse.all_reduce sum, %x devices = 2 : tensor<4xf32>
      return %0 : tensor<4xf32>
    })");
  ASSERT_TRUE(func);
  EXPECT_TRUE(succeeded(checkCollectivesSpan(func, 2)));
  EXPECT_EQ(lastDiagnostic(
                [&] { EXPECT_TRUE(failed(checkCollectivesSpan(func, 4))); }),
            "this collective spans 2 devices, but --devices=4");
}

} // namespace
