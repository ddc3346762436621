//===- OnnxImportTest.cpp - Imported ONNX ops compute what ONNX means -----===//
//
// Small ONNX models in protobuf text form, imported and run by the
// reference interpreter on inputs whose results are worked out by hand:
// the layout changes of Conv (NCHW to NHWC and back, ONNX's pad order),
// Gemm's transposes, alpha and beta, Slice bounds, Gather's negative
// indices, BatchNormalization folded per channel, MatMul of vectors, and
// LogSoftmax.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Import/OnnxImporter.h"
#include "opfuse/InitAll.h"
#include "opfuse/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace opfuse;

namespace {

class OnnxImportTest : public ::testing::Test {
protected:
  OnnxImportTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// Imports `graph` (the body of a GraphProto, opset 17) and runs it on
  /// `inputs`; the first output's data.
  std::vector<double> run(const std::string &graph,
                          std::vector<std::vector<double>> inputs) {
    std::string text = "ir_version: 8\nopset_import { domain: \"\" version: "
                       "17 }\ngraph {\n" +
                       graph + "\n}\n";
    auto buffer = llvm::MemoryBuffer::getMemBuffer(text, "test.onnxtxt");
    OnnxImportFailure failure;
    module = importOnnx(*buffer, /*textFormat=*/true, context, {}, failure);
    EXPECT_TRUE(module) << "import failed";
    if (!module)
      return {};
    auto func = *module->getOps<func::FuncOp>().begin();
    SmallVector<reference::Tensor> args;
    for (auto [type, data] : llvm::zip(func.getArgumentTypes(), inputs)) {
      auto tensor = cast<RankedTensorType>(type);
      reference::Tensor t;
      t.elementType = tensor.getElementType();
      t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
      t.data = data;
      args.push_back(std::move(t));
    }
    reference::Options options;
    options.f64Accumulation = true;
    FailureOr<SmallVector<reference::Tensor>> out =
        reference::interpret(func, args, options);
    EXPECT_TRUE(succeeded(out));
    return succeeded(out) ? (*out)[0].data : std::vector<double>{};
  }

  static void expectNear(const std::vector<double> &got,
                         const std::vector<double> &want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

std::string input(const char *name, const char *dims) {
  return std::string("input { name: \"") + name +
         "\" type { tensor_type { elem_type: 1 shape { " + dims + " } } } }\n";
}

TEST_F(OnnxImportTest, ConvPadsStridesAndBiasInNchw) {
  // One 3x3 input channel of 1..9, two filters: all ones (the sum of the
  // 3x3 neighbourhood, zero padded) and a centre tap of 2, with biases 0
  // and 10; stride 2 with padding 1 keeps the corners.
  std::string graph =
      input("x", "dim { dim_value: 1 } dim { dim_value: 1 } dim { dim_value: "
                 "3 } dim { dim_value: 3 }") +
      R"(initializer { name: "w" data_type: 1 dims: [2, 1, 3, 3]
           float_data: [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0] }
         initializer { name: "b" data_type: 1 dims: 2 float_data: [0, 10] }
         node { name: "c" op_type: "Conv" input: ["x", "w", "b"] output: "y"
           attribute { name: "pads" type: INTS ints: [1, 1, 1, 1] }
           attribute { name: "strides" type: INTS ints: [2, 2] } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  // Corners: 1+2+4+5, 2+3+5+6, 4+5+7+8, 5+6+8+9; then 10 + 2 x corner.
  expectNear(run(graph, {x}), {12, 16, 24, 28, 12, 16, 24, 28});
}

TEST_F(OnnxImportTest, LargeConvFilterIsTransposedOnceByTheImporter) {
  // A 64x8x3x3 filter (4608 elements, a resource blob) over an 8x3x3 input
  // without padding: output o is the dot product of the input with filter
  // o. The importer hands fuse.conv2d an OHWI constant, no transpose op.
  constexpr int kOut = 64, kIn = 8, kTaps = kIn * 9;
  std::vector<double> x(kTaps), w(kOut * kTaps);
  std::string values;
  for (int i = 0; i < kOut * kTaps; ++i) {
    w[i] = double((i * 7) % 23 - 11);
    values += (i ? ", " : "") + std::to_string(int(w[i]));
  }
  for (int i = 0; i < kTaps; ++i)
    x[i] = double(i % 5 - 2);
  std::string graph =
      input("x", "dim { dim_value: 1 } dim { dim_value: 8 } dim { dim_value: "
                 "3 } dim { dim_value: 3 }") +
      "initializer { name: \"w\" data_type: 1 dims: [64, 8, 3, 3] "
      "float_data: [" +
      values +
      "] }\n"
      "node { op_type: \"Conv\" input: [\"x\", \"w\"] output: \"y\" }\n"
      "output { name: \"y\" type { tensor_type { elem_type: 1 } } }";
  std::vector<double> want(kOut, 0.0);
  for (int o = 0; o < kOut; ++o)
    for (int i = 0; i < kTaps; ++i)
      want[o] += x[i] * w[o * kTaps + i];
  expectNear(run(graph, {x}), want);
  bool transposesAConstant = false;
  module->walk([&](fuse::TransposeOp op) {
    transposesAConstant |=
        bool(op.getInput().getDefiningOp<fuse::ConstantOp>());
  });
  EXPECT_FALSE(transposesAConstant);
}

TEST_F(OnnxImportTest, ConvAsymmetricPadsFollowOnnxOrder) {
  // pads = [top, left, bottom, right] = [0, 1, 0, 0]: a 1x2 filter
  // [1, 10] over a row [1, 2, 3] padded on the left only.
  std::string graph =
      input("x", "dim { dim_value: 1 } dim { dim_value: 1 } dim { dim_value: "
                 "1 } dim { dim_value: 3 }") +
      R"(initializer { name: "w" data_type: 1 dims: [1, 1, 1, 2] float_data: [1, 10] }
         node { name: "c" op_type: "Conv" input: ["x", "w"] output: "y"
           attribute { name: "pads" type: INTS ints: [0, 1, 0, 0] } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  // Windows (0,1), (1,2), (2,3): 0 + 10, 1 + 20, 2 + 30.
  expectNear(run(graph, {{1, 2, 3}}), {10, 21, 32});
}

TEST_F(OnnxImportTest, GemmTransposesAlphaBeta) {
  // y = 2 * A^T B + 0.5 * C, A stored 2x1 (so A^T is 1x2), B 2x2.
  std::string graph =
      input("a", "dim { dim_value: 2 } dim { dim_value: 1 }") +
      R"(initializer { name: "b" data_type: 1 dims: [2, 2] float_data: [1, 2, 3, 4] }
         initializer { name: "c" data_type: 1 dims: 2 float_data: [10, 20] }
         node { name: "g" op_type: "Gemm" input: ["a", "b", "c"] output: "y"
           attribute { name: "transA" type: INT i: 1 }
           attribute { name: "alpha" type: FLOAT f: 2 }
           attribute { name: "beta" type: FLOAT f: 0.5 } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  // [1, 1] @ B = [4, 6]; 2 x that + [5, 10].
  expectNear(run(graph, {{1, 1}}), {13, 22});
}

TEST_F(OnnxImportTest, SliceClampsAndSteps) {
  // x[1:100:2] of 0..5, the end clamped to the length.
  std::string graph =
      input("x", "dim { dim_value: 6 }") +
      R"(initializer { name: "s" data_type: 7 dims: 1 int64_data: 1 }
         initializer { name: "e" data_type: 7 dims: 1 int64_data: 100 }
         initializer { name: "a" data_type: 7 dims: 1 int64_data: 0 }
         initializer { name: "st" data_type: 7 dims: 1 int64_data: 2 }
         node { name: "sl" op_type: "Slice" input: ["x", "s", "e", "a", "st"] output: "y" }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  expectNear(run(graph, {{0, 1, 2, 3, 4, 5}}), {1, 3, 5});
}

TEST_F(OnnxImportTest, GatherNegativeIndicesCountFromTheEnd) {
  std::string graph =
      input("x", "dim { dim_value: 3 } dim { dim_value: 2 }") +
      R"(initializer { name: "i" data_type: 7 dims: 2 int64_data: [-1, 0] }
         node { name: "g" op_type: "Gather" input: ["x", "i"] output: "y" }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  expectNear(run(graph, {{1, 2, 3, 4, 5, 6}}), {5, 6, 1, 2});
}

TEST_F(OnnxImportTest, GatherElementsAlongEitherAxis) {
  // x = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]; along axis 1 the
  // indices pick within each row (-1 is the last), along axis 0 within
  // each column.
  std::string rows = input("x", "dim { dim_value: 3 } dim { dim_value: 4 }") +
                     R"(initializer { name: "i" data_type: 7 dims: [3, 2]
                       int64_data: [0, -1, 2, 1, 3, 0] }
         node { op_type: "GatherElements" input: ["x", "i"] output: "y"
                attribute { name: "axis" type: INT i: 1 } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  expectNear(run(rows, {x}), {1, 4, 7, 6, 12, 9});
  std::string columns =
      input("x", "dim { dim_value: 3 } dim { dim_value: 4 }") +
      R"(initializer { name: "i" data_type: 7 dims: [2, 4]
                       int64_data: [2, 0, 1, -3, 1, 1, 0, 2] }
         node { op_type: "GatherElements" input: ["x", "i"] output: "y" }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  expectNear(run(columns, {x}), {9, 2, 7, 4, 5, 6, 3, 12});
}

TEST_F(OnnxImportTest, GatherElementsOfComputedIndices) {
  // Indices from an input: negative ones wrap on the GPU's side too.
  std::string graph =
      input("x", "dim { dim_value: 3 } dim { dim_value: 4 }") +
      R"(input { name: "i" type { tensor_type { elem_type: 7 shape {
                   dim { dim_value: 3 } dim { dim_value: 2 } } } } }
         node { op_type: "GatherElements" input: ["x", "i"] output: "y"
                attribute { name: "axis" type: INT i: 1 } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  expectNear(run(graph, {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                         {0, -1, 2, 1, 3, 0}}),
             {1, 4, 7, 6, 12, 9});
}

TEST_F(OnnxImportTest, GatherElementsOfConstantsFoldsOnTheHost) {
  // BERT's token-type ids: a constant buffer gathered by constant indices
  // leaves a constant, no gather.
  std::string graph = input("x", "dim { dim_value: 1 } dim { dim_value: 3 }") +
                      R"(initializer { name: "t" data_type: 1 dims: [2, 3]
                       float_data: [1, 2, 3, 4, 5, 6] }
         initializer { name: "i" data_type: 7 dims: [1, 3]
                       int64_data: [1, 0, 1] }
         node { op_type: "GatherElements" input: ["t", "i"] output: "g" }
         node { op_type: "Add" input: ["x", "g"] output: "y" }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  expectNear(run(graph, {{10, 20, 30}}), {14, 22, 36});
  bool gathers = false;
  module->walk([&](fuse::GatherOp) { gathers = true; });
  EXPECT_FALSE(gathers);
}

TEST_F(OnnxImportTest, LargeRawAndExternalWeightsKeepTheirBytes) {
  // Weights of more than 4096 elements go into their resource blob as they
  // are stored (raw_data, or an external file read once): x + w and x + v
  // must see every element.
  constexpr int kCount = 5000;
  std::vector<float> weights(kCount);
  for (int i = 0; i < kCount; ++i)
    weights[i] = 0.25f * float(i % 97) - 3.0f;
  std::string escaped;
  for (char c : llvm::StringRef(reinterpret_cast<const char *>(weights.data()),
                                kCount * sizeof(float))) {
    char octal[5];
    std::snprintf(octal, sizeof(octal), "\\%03o", unsigned(uint8_t(c)));
    escaped += octal;
  }
  llvm::SmallString<128> dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("onnx-weights", dir));
  llvm::SmallString<128> bin(dir);
  llvm::sys::path::append(bin, "w.bin");
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(bin, ec);
    ASSERT_FALSE(ec);
    out.write(reinterpret_cast<const char *>(weights.data()),
              kCount * sizeof(float));
  }
  std::string text =
      "ir_version: 8\nopset_import { domain: \"\" version: 17 }\ngraph {\n" +
      input("x", "dim { dim_value: 5000 }") +
      "initializer { name: \"w\" data_type: 1 dims: 5000 raw_data: \"" +
      escaped +
      "\" }\n"
      "initializer { name: \"v\" data_type: 1 dims: 5000 data_location: "
      "EXTERNAL external_data { key: \"location\" value: \"w.bin\" } }\n"
      "node { op_type: \"Add\" input: [\"x\", \"w\"] output: \"a\" }\n"
      "node { op_type: \"Add\" input: [\"a\", \"v\"] output: \"y\" }\n"
      "output { name: \"y\" type { tensor_type { elem_type: 1 } } }\n}\n";
  llvm::SmallString<128> model(dir);
  llvm::sys::path::append(model, "model.onnxtxt");
  auto buffer = llvm::MemoryBuffer::getMemBuffer(text, model);
  OnnxImportFailure failure;
  module = importOnnx(*buffer, /*textFormat=*/true, context, {}, failure);
  llvm::sys::fs::remove(bin);
  llvm::sys::fs::remove(dir);
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  reference::Tensor x;
  x.elementType = Float32Type::get(&context);
  x.shape = {kCount};
  x.data.assign(kCount, 1.0);
  reference::Options options;
  FailureOr<SmallVector<reference::Tensor>> out =
      reference::interpret(func, {x}, options);
  ASSERT_TRUE(succeeded(out));
  for (int i = 0; i < kCount; ++i)
    ASSERT_EQ((*out)[0].data[i], 1.0 + 2.0 * double(weights[i])) << i;
}

TEST_F(OnnxImportTest, BatchNormalizationPerChannel) {
  // Channel 0: (x - 1) / sqrt(3 + 1) * 2 + 1; channel 1: (x - 0) / 1 + 0.
  std::string graph =
      input("x", "dim { dim_value: 1 } dim { dim_value: 2 } dim { dim_value: "
                 "2 }") +
      R"(initializer { name: "g" data_type: 1 dims: 2 float_data: [2, 1] }
         initializer { name: "b" data_type: 1 dims: 2 float_data: [1, 0] }
         initializer { name: "m" data_type: 1 dims: 2 float_data: [1, 0] }
         initializer { name: "v" data_type: 1 dims: 2 float_data: [3, 1] }
         node { name: "bn" op_type: "BatchNormalization" input: ["x", "g", "b", "m", "v"] output: "y"
           attribute { name: "epsilon" type: FLOAT f: 1 } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  // sqrt(1 + 1) for channel 1's variance 1 and epsilon 1.
  const double r2 = 1 / std::sqrt(2.0);
  expectNear(run(graph, {{3, 5, 4, 8}}), {3, 5, 4 * r2, 8 * r2});
}

TEST_F(OnnxImportTest, MatMulOfVectorsDropsTheirAxes) {
  std::string graph =
      input("v", "dim { dim_value: 2 }") +
      R"(initializer { name: "m" data_type: 1 dims: [2, 3] float_data: [1, 2, 3, 4, 5, 6] }
         node { name: "mm" op_type: "MatMul" input: ["v", "m"] output: "y" }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  expectNear(run(graph, {{1, 10}}), {41, 52, 63});
}

TEST_F(OnnxImportTest, LogSoftmax) {
  std::string graph =
      input("x", "dim { dim_value: 2 }") +
      R"(node { name: "ls" op_type: "LogSoftmax" input: "x" output: "y" }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  const double lse = std::log(std::exp(0.0) + std::exp(1.0));
  expectNear(run(graph, {{0, 1}}), {-lse, 1 - lse});
}

TEST_F(OnnxImportTest, ClipBoundsBothSides) {
  std::string graph = input("x", "dim { dim_value: 4 }") +
                      R"(initializer { name: "lo" data_type: 1 float_data: 0 }
         initializer { name: "hi" data_type: 1 float_data: 6 }
         node { name: "c" op_type: "Clip" input: ["x", "lo", "hi"] output: "y" }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  expectNear(run(graph, {{-1, 3, 7, 6}}), {0, 3, 6, 6});
}

TEST_F(OnnxImportTest, LogicalOpsAsSelects) {
  // a = x > 0, b = y > 0; (a and b) + 2 (a or b) + 4 (a xor b) + 8 (not a).
  std::string graph = input("x", "dim { dim_value: 4 }") +
                      input("y", "dim { dim_value: 4 }") +
                      R"(initializer { name: "zero" data_type: 1 float_data: 0 }
         initializer { name: "two" data_type: 1 float_data: 2 }
         initializer { name: "four" data_type: 1 float_data: 4 }
         initializer { name: "eight" data_type: 1 float_data: 8 }
         node { op_type: "Greater" input: ["x", "zero"] output: "a" }
         node { op_type: "Greater" input: ["y", "zero"] output: "b" }
         node { op_type: "And" input: ["a", "b"] output: "and" }
         node { op_type: "Or" input: ["a", "b"] output: "or" }
         node { op_type: "Xor" input: ["a", "b"] output: "xor" }
         node { op_type: "Not" input: "a" output: "not" }
         node { op_type: "Cast" input: "and" output: "f1" attribute { name: "to" type: INT i: 1 } }
         node { op_type: "Cast" input: "or" output: "f2" attribute { name: "to" type: INT i: 1 } }
         node { op_type: "Cast" input: "xor" output: "f4" attribute { name: "to" type: INT i: 1 } }
         node { op_type: "Cast" input: "not" output: "f8" attribute { name: "to" type: INT i: 1 } }
         node { op_type: "Mul" input: ["f2", "two"] output: "m2" }
         node { op_type: "Mul" input: ["f4", "four"] output: "m4" }
         node { op_type: "Mul" input: ["f8", "eight"] output: "m8" }
         node { op_type: "Sum" input: ["f1", "m2", "m4", "m8"] output: "s" }
         output { name: "s" type { tensor_type { elem_type: 1 } } })";
  // (a, b) = (0, 0): not = 8; (0, 1): or + xor + not = 14; (1, 0): or + xor
  // = 6; (1, 1): and + or = 3.
  expectNear(run(graph, {{-1, -1, 1, 1}, {-1, 1, -1, 1}}), {8, 14, 6, 3});
}

TEST_F(OnnxImportTest, MaxPoolWithPaddingIgnoresThePad) {
  // 3x3 input of -1..-9 (all negative: a zero pad would win), 2x2 windows,
  // stride 2, one padded row and column before.
  std::string graph =
      input("x", "dim { dim_value: 1 } dim { dim_value: 1 } dim { dim_value: "
                 "3 } dim { dim_value: 3 }") +
      R"(node { name: "p" op_type: "MaxPool" input: "x" output: "y"
           attribute { name: "kernel_shape" type: INTS ints: [2, 2] }
           attribute { name: "strides" type: INTS ints: [2, 2] }
           attribute { name: "pads" type: INTS ints: [1, 1, 0, 0] } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  // Windows (rows -1..0, cols -1..0) = {x00}; (-1..0, 1..2) = {x01, x02};
  // (1..2, -1..0) = {x10, x20}; (1..2, 1..2) = {x11, x12, x21, x22}.
  expectNear(run(graph, {{-1, -2, -3, -4, -5, -6, -7, -8, -9}}),
             {-1, -2, -4, -5});
}

TEST_F(OnnxImportTest, AveragePoolCountsOnlyTheInputUnlessAsked) {
  std::string graph =
      input("x", "dim { dim_value: 1 } dim { dim_value: 1 } dim { dim_value: "
                 "2 } dim { dim_value: 2 }") +
      R"(node { name: "p" op_type: "AveragePool" input: "x" output: "y"
           attribute { name: "kernel_shape" type: INTS ints: [2, 2] }
           attribute { name: "pads" type: INTS ints: [1, 1, 0, 0] } }
         output { name: "y" type { tensor_type { elem_type: 1 } } })";
  // Outputs 2x2: windows at (-1,-1), (-1,0), (0,-1), (0,0) over [[1, 2],
  // [3, 4]]: means of {1}, {1, 2}, {1, 3}, {1, 2, 3, 4}.
  expectNear(run(graph, {{1, 2, 3, 4}}), {1, 1.5, 2, 2.5});
  std::string included = graph;
  included.replace(included.find("output: \"y\""), 13,
                   "output: \"y\" attribute { name: \"count_include_pad\" "
                   "type: INT i: 1 }");
  // Every window counts 4 elements.
  expectNear(run(included, {{1, 2, 3, 4}}), {0.25, 0.75, 1, 2.5});
}

} // namespace
