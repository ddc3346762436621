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
#include "opfuse/Runtime/Spmd.h"

using namespace mlir;
using namespace opfuse;

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
