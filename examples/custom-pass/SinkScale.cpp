//===- SinkScale.cpp - An out-of-tree opfuse pass, loaded as a plugin -----===//
//
// sink-scale-past-matmul, and the entry point through which opt-fuse and
// opfuse-opt --load-pass-plugin register it.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/Support/PassStatistics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/PassPlugin.h"

#include <climits>

using namespace mlir;
namespace fuse = opfuse::fuse;

namespace sinkscale {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_SINKSCALEPASTMATMUL
#define GEN_PASS_REGISTRATION
#include "Passes.h.inc"
} // namespace sinkscale

namespace {

/// Counted for --mlir-pass-statistics (opfuse's counters: a release LLVM
/// compiles MLIR's Pass::Statistic out).
constexpr opfuse::PassStatistic scalesSunk{
    "scales-sunk", "Scales moved from a matmul operand to its result"};

/// Whether `value` is a splat constant of a power of two (of either sign)
/// that broadcasts to any shape of `like`'s element type.
bool isExactScale(Value value, Type like) {
  auto type = cast<RankedTensorType>(value.getType());
  DenseFPElementsAttr splat;
  if (type.getElementType() != getElementTypeOrSelf(like) ||
      !llvm::all_of(type.getShape(), [](int64_t d) { return d == 1; }) ||
      !matchPattern(value, m_Constant(&splat)) || !splat.isSplat())
    return false;
  return splat.getSplatValue<APFloat>().getExactLog2Abs() != INT_MIN;
}

struct SinkScalePastMatmul
    : public sinkscale::impl::SinkScalePastMatmulBase<SinkScalePastMatmul> {
  void runOnOperation() override {
    SmallVector<fuse::MatmulOp> matmuls;
    getOperation().walk([&](fuse::MatmulOp op) { matmuls.push_back(op); });
    for (fuse::MatmulOp matmul : matmuls)
      for (OpOperand &operand : matmul->getOpOperands())
        if (sink(matmul, operand))
          break;
  }

  /// Rewrites matmul(x * c, w) (either operand) as matmul(x, w) * c.
  bool sink(fuse::MatmulOp matmul, OpOperand &operand) {
    auto mul = operand.get().getDefiningOp<fuse::MulOp>();
    if (!mul || !mul->hasOneUse())
      return false;
    Type resultType = matmul.getType();
    for (auto [x, c] : {std::pair{mul.getLhs(), mul.getRhs()},
                        std::pair{mul.getRhs(), mul.getLhs()}}) {
      if (x.getType() != mul.getType() || !isExactScale(c, resultType) ||
          cast<RankedTensorType>(c.getType()).getRank() >
              cast<RankedTensorType>(resultType).getRank())
        continue;
      operand.set(x);
      OpBuilder builder(matmul->getContext());
      builder.setInsertionPointAfter(matmul);
      auto scaled =
          fuse::MulOp::create(builder, mul.getLoc(), matmul.getResult(), c);
      matmul.getResult().replaceAllUsesExcept(scaled, scaled);
      mul.erase();
      opfuse::addPassStatistic(getArgument(), scalesSunk);
      return true;
    }
    return false;
  }
};

} // namespace

/// What --load-pass-plugin looks for: registers the pass by its argument.
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "SinkScale", LLVM_VERSION_STRING,
          [] { sinkscale::registerSinkScalePasses(); }};
}
