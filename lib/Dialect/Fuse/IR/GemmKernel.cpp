//===- GemmKernel.cpp - Ops that form one GEMM kernel ---------------------===//
//
// The epilogue is evaluated on each thread's accumulators, element by
// element, so every value in it must be one per output element; smaller
// values (a bias) enter only as kernel inputs read by broadcast. The
// prologue is evaluated on each element of an A slice in shared memory:
// one full-size input is what the kernel copies, and every other value
// is evaluated at the element's broadcast index.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"
#include "opfuse/Dialect/Fuse/IR/RowKernel.h"

#include "opfuse/Dialect/Fuse/IR/SequenceConcat.h"

#include "opfuse/Dialect/Fuse/IR/StridedView.h"
#include "llvm/Support/MathExtras.h"

#include "opfuse/Dialect/Fuse/IR/FuseShapes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace opfuse::fuse {

bool isContraction(Operation *op) {
  return isa<MatmulOp, Conv2DOp, AttentionOp>(op);
}

bool isGemmContraction(Operation *op) { return isa<MatmulOp, Conv2DOp>(op); }

int64_t countOutputTiles(const GemmShape &shape, const MatmulTiling &tiling) {
  return shape.batch * llvm::divideCeil(shape.m, tiling.blockM) *
         llvm::divideCeil(shape.n, tiling.blockN);
}

bool decomposesAsWindows(Conv2DOp conv) {
  auto filter = cast<RankedTensorType>(conv.getFilter().getType());
  ArrayRef<int64_t> inputDilation = conv.getInputDilation();
  return conv.getGroups() > 1 && inputDilation[0] == 1 &&
         inputDilation[1] == 1 &&
         filter.getDimSize(1) * filter.getDimSize(2) * filter.getDimSize(3) <=
             kMaxWindowTerms;
}

bool isSkinnyGemm(const GemmShape &shape) {
  return shape.m <= 64 && shape.k >= 256;
}

int64_t shortestTileRows(const GemmShape &shape, bool sixteenBit) {
  if (sixteenBit && isSkinnyGemm(shape))
    return llvm::alignTo(std::max<int64_t>(shape.m, 1), 16);
  return 64;
}

bool foldsBatchIntoRows(MatmulOp op) {
  const int64_t rank = op.getType().getRank();
  if (rank < 3 || op.getTransposeA() || op.getLhs().getType().getRank() != rank)
    return false;
  ArrayRef<int64_t> rhs = op.getRhs().getType().getShape();
  return llvm::all_of(rhs.drop_back(2), [](int64_t size) { return size == 1; });
}

GemmShape getGemmShape(Operation *op) {
  if (auto conv = dyn_cast<Conv2DOp>(op)) {
    ArrayRef<int64_t> out = conv.getType().getShape();
    ArrayRef<int64_t> filter = conv.getFilter().getType().getShape();
    // A grouped conv2d is one GEMM per group: its filters' rows, reading
    // its channels of the input.
    GemmShape shape;
    shape.batch = conv.getGroups();
    shape.m = out[0] * out[1] * out[2];
    shape.n = out[3] / conv.getGroups();
    shape.k = filter[1] * filter[2] * filter[3];
    return shape;
  }
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    ArrayRef<int64_t> out = attention.getType().getShape();
    GemmShape shape;
    shape.batch = out[0] * out[1];
    shape.m = out[2];
    shape.n = out[3];
    shape.k = attention.getQ().getType().getDimSize(3);
    return shape;
  }
  auto matmul = cast<MatmulOp>(op);
  RankedTensorType result = matmul.getType();
  const int64_t rank = result.getRank();
  GemmShape shape;
  shape.m = result.getDimSize(rank - 2);
  shape.n = result.getDimSize(rank - 1);
  shape.k = matmul.getContractionSize();
  for (int64_t d = 0; d + 2 < rank; ++d)
    shape.batch *= result.getDimSize(d);
  if (foldsBatchIntoRows(matmul)) {
    shape.m *= shape.batch;
    shape.batch = 1;
  }
  return shape;
}

/// Why reduction `op` cannot be a statistic of a prologue of A's shape
/// `full`, or nullopt when it can: a float reduction over the last axis,
/// keeping it.
static std::optional<std::string>
checkPrologueStatistic(Operation *op, ArrayRef<int64_t> full) {
  auto input = cast<RankedTensorType>(op->getOperand(0).getType());
  auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
  const int64_t rank = input.getRank();
  if (input.getShape() != full || !isa<FloatType>(input.getElementType()) ||
      axes.size() != 1 || axes.front() != rank - 1 ||
      !op->hasAttr("keepdims") || full.back() == 1)
    return describeOp(op) +
           " is not a float reduction of A's shape over its last axis "
           "(keepdims), the one statistic a prologue computes per row";
  return std::nullopt;
}

std::optional<GemmPrologue>
getGemmPrologue(Operation *contraction,
                llvm::function_ref<bool(Operation *)> isMember,
                std::string &why) {
  GemmPrologue prologue;
  auto matmul = dyn_cast<MatmulOp>(contraction);
  Value lhs = contraction->getOperand(0);
  Operation *def = lhs.getDefiningOp();
  if (!def || !isMember(def) || isStridedViewOp(def))
    return prologue;
  auto noPrologue = [&](const std::string &reason) {
    why = describeOp(def) + " computes the A operand of " +
          describeOp(contraction) + "; " + reason;
    return std::nullopt;
  };
  if (isa<AttentionOp>(contraction))
    return noPrologue("an attention kernel reads q from memory (no "
                      "prologue)");
  if (!matmul)
    return noPrologue("a conv2d reads its input from memory (no prologue)");
  if (matmul.getTransposeA())
    return noPrologue("a prologue needs A row-major (transpose_a is set)");
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  ArrayRef<int64_t> full = lhsType.getShape();
  llvm::SetVector<Operation *> ops;
  SmallVector<Value> fullLeaves;
  SmallVector<Operation *> stack = {def};
  while (!stack.empty()) {
    Operation *op = stack.pop_back_val();
    if (!ops.insert(op))
      continue;
    if (isReduction(op)) {
      if (std::optional<std::string> refusal = checkPrologueStatistic(op, full))
        return noPrologue(*refusal);
      prologue.statistics.push_back(op);
    } else if (!isElementwise(op) && !isSplatConstant(op)) {
      why = describeOp(op) + " is on the way to the A operand of " +
            describeOp(contraction) +
            "; a GEMM prologue holds elementwise ops and per-row "
            "reductions only";
      return std::nullopt;
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!broadcastsTo(type.getShape(), full)) {
      why = describeOp(op) + " does not broadcast to the A operand of " +
            describeOp(contraction);
      return std::nullopt;
    }
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && isMember(producer)) {
        if (isStridedViewOp(producer)) {
          why = describeOp(producer) + " feeds the prologue of " +
                describeOp(contraction) +
                "; a prologue reads its inputs as they are";
          return std::nullopt;
        }
        stack.push_back(producer);
        continue;
      }
      auto type = cast<RankedTensorType>(operand.getType());
      if (type.getShape() == full && !llvm::is_contained(fullLeaves, operand))
        fullLeaves.push_back(operand);
    }
  }
  // Each prologue value exists only on the way to A: it is computed per
  // K slice of a tile, never as a whole tensor to store.
  // (A splat constant is a scalar wherever it is read.)
  for (Operation *op : ops)
    for (Operation *user : op->getUsers())
      if (user != contraction && !ops.contains(user) && !isSplatConstant(op)) {
        why = describeOp(op) + " is on the way to the A operand of " +
              describeOp(contraction) + " and also read by " +
              describeOp(user) +
              "; a prologue value is computed per K slice, never stored";
        return std::nullopt;
      }
  if (fullLeaves.size() != 1) {
    why = "the prologue of " + describeOp(contraction) + " reads " +
          std::to_string(fullLeaves.size()) + " inputs of A's shape " +
          formatShape(full) + "; the kernel copies exactly one";
    return std::nullopt;
  }
  if (cast<RankedTensorType>(fullLeaves.front().getType()).getElementType() !=
      lhsType.getElementType()) {
    why = "the prologue of " + describeOp(contraction) +
          " reads its A-shaped input as " +
          llvm::formatv("{0}",
                        cast<RankedTensorType>(fullLeaves.front().getType())
                            .getElementType())
              .str() +
          ", not A's element type; the kernel copies it into A's stages";
    return std::nullopt;
  }
  prologue.source = fullLeaves.front();
  prologue.ops.assign(ops.begin(), ops.end());
  auto inBlockOrder = [](Operation *a, Operation *b) {
    return a->isBeforeInBlock(b);
  };
  llvm::sort(prologue.ops, inBlockOrder);
  llvm::sort(prologue.statistics, inBlockOrder);
  // A per-row value is computed once per row from the statistics alone:
  // what else it read would have to be loaded per row.
  for (Operation *op : prologue.ops) {
    if (prologue.statistics.empty() || !isPerRowPrologueOp(op, lhs) ||
        isReduction(op))
      continue;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer ||
          (!isSplatConstant(producer) && !isPerRowPrologueOp(producer, lhs)))
        return noPrologue(describeOp(op) +
                          " computes a per-row value from an input; a "
                          "prologue computes those from its statistics and "
                          "constants only");
    }
  }
  return prologue;
}

bool isPerRowPrologueOp(Operation *op, Value lhs) {
  if (isReduction(op))
    return true;
  if (isSplatConstant(op))
    return false;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  return type.getRank() == lhsType.getRank() && type.getShape().back() == 1 &&
         lhsType.getShape().back() != 1 &&
         type.getShape().drop_back() == lhsType.getShape().drop_back();
}

/// Whether `view` (a view op of a GEMM kernel) only feeds, through other
/// views, an operand of `contraction` or one of the sequence concats
/// `readers` (attention K and V read piece by piece).
static bool feedsOnlyOperands(Operation *view, Operation *contraction,
                              const llvm::DenseSet<Operation *> &members,
                              const llvm::DenseSet<Operation *> &readers = {}) {
  for (Operation *user : view->getUsers()) {
    if (user == contraction || readers.contains(user))
      continue;
    if (!members.contains(user) || !isStridedViewOp(user) ||
        !feedsOnlyOperands(user, contraction, members, readers))
      return false;
  }
  return true;
}

/// The one contraction of `ops`, or null with the reason in `why`.
static Operation *
findOnlyContraction(ArrayRef<Operation *> ops,
                    const llvm::DenseSet<Operation *> &members,
                    std::string &why) {
  Operation *contraction = nullptr;
  for (Operation *op : ops) {
    if (!isContraction(op))
      continue;
    if (contraction) {
      // A GEMM feeding another: say what the second one cannot do.
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp();
            producer && members.contains(producer) &&
            !isStridedViewOp(producer)) {
          why = describeOp(producer) + " produces an operand of " +
                describeOp(op) + "; a GEMM kernel holds one GEMM";
          return nullptr;
        }
      why = "a kernel holds one matmul or conv2d; " + describeOp(op) +
            " would be the second";
      return nullptr;
    }
    contraction = op;
  }
  if (!contraction)
    why = "the kernel holds no matmul or conv2d";
  return contraction;
}

/// Whether the kernel of `members` reads the attention operand `operand`
/// (K or V) as the pieces of a concat along the sequence: then the concat
/// goes into `sequenceConcats`. Sets `why` and returns failure where such
/// a concat cannot be read that way.
static FailureOr<bool>
readsSequenceConcat(Value operand, Operation *contraction,
                    const llvm::DenseSet<Operation *> &members,
                    llvm::DenseSet<Operation *> &sequenceConcats,
                    std::string &why) {
  auto attention = dyn_cast<AttentionOp>(contraction);
  if (!attention ||
      (operand != attention.getK() && operand != attention.getV()))
    return false;
  auto isMember = [&](Operation *op) { return members.contains(op); };
  ConcatOp concat = getSequenceConcat(operand, isMember);
  if (!concat)
    return false;
  for (Operation *user : concat->getUsers())
    if (user != contraction &&
        (!members.contains(user) || !isStridedViewOp(user) ||
         !feedsOnlyOperands(user, contraction, members))) {
      why = describeOp(concat) + " is also read by " + describeOp(user) +
            "; the attention kernel reads the concat's inputs in place and "
            "never writes it";
      return failure();
    }
  if (!getSequencePieces(concat, isMember, why))
    return failure();
  sequenceConcats.insert(concat);
  return true;
}

/// Whether the GEMM kernel of `members` can read `operand` of
/// `contraction`, which an op of the kernel (not the prologue) produces:
/// through views of memory, or (attention K and V) as a sequence concat's
/// pieces. Sets `why` where it cannot.
static bool checkOperandRead(Value operand, Operation *contraction,
                             const llvm::DenseSet<Operation *> &members,
                             llvm::DenseSet<Operation *> &sequenceConcats,
                             std::string &why) {
  Operation *producer = operand.getDefiningOp();
  FailureOr<bool> pieces =
      readsSequenceConcat(operand, contraction, members, sequenceConcats, why);
  if (failed(pieces))
    return false;
  if (*pieces)
    return true;
  auto attention = dyn_cast<AttentionOp>(contraction);
  if (attention && operand == attention.getMask()) {
    why = describeOp(producer) + " produces the mask of " +
          describeOp(contraction) +
          "; an attention kernel reads its mask from memory as it is";
    return false;
  }
  if (!isStridedViewOp(producer) || !isa<MatmulOp, AttentionOp>(contraction)) {
    why = describeOp(producer) + " produces an operand of " +
          describeOp(contraction) +
          "; a GEMM kernel reads its operands from memory, through "
          "transposes, slices and reshapes (A also through elementwise "
          "ops, an attention's K and V through a concat along the "
          "sequence axis)";
    return false;
  }
  auto isView = [&](Operation *op) {
    return members.contains(op) && isStridedViewOp(op);
  };
  std::optional<StridedView> view = getStridedView(operand, isView, why);
  if (!view)
    return false;
  if (Operation *def = view->base.getDefiningOp();
      def && members.contains(def)) {
    why = describeOp(def) + " computes what " + describeOp(contraction) +
          " reads through views; a GEMM kernel reads what it views from "
          "memory";
    return false;
  }
  const size_t rank = view->strides.size();
  if (attention && view->strides[rank - 1] != 1) {
    why = "the head dimension of " + describeOp(contraction) +
          "'s operand is not contiguous in the buffer it views, so the "
          "attention kernel cannot read it in place";
    return false;
  }
  if (view->strides[rank - 1] != 1 && view->strides[rank - 2] != 1) {
    why = "neither of the two minor dimensions of " + describeOp(contraction) +
          "'s operand is contiguous in the buffer it views, so the GEMM "
          "cannot read it in place";
    return false;
  }
  return true;
}

Operation *analyzeGemmKernel(ArrayRef<Operation *> ops, std::string &why) {
  llvm::DenseSet<Operation *> members(ops.begin(), ops.end());
  Operation *contraction = findOnlyContraction(ops, members, why);
  if (!contraction)
    return nullptr;
  std::optional<GemmPrologue> prologue = getGemmPrologue(
      contraction, [&](Operation *op) { return members.contains(op); }, why);
  if (!prologue)
    return nullptr;
  llvm::DenseSet<Operation *> prologueOps(prologue->ops.begin(),
                                          prologue->ops.end());
  // Operands are read from memory, through a strided layout when views
  // inside the kernel produce them (a matmul's only), or A through its
  // prologue; an attention's K and V also piece by piece where a concat
  // along the sequence joins them.
  llvm::DenseSet<Operation *> sequenceConcats;
  for (Value operand : contraction->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if (!producer || !members.contains(producer) ||
        prologueOps.contains(producer))
      continue;
    if (!checkOperandRead(operand, contraction, members, sequenceConcats, why))
      return nullptr;
  }
  // The other views are the layout the kernel stores a result in (the merge
  // of attention heads after P.V): every element is computed in the
  // matmul's index space and written where the view puts it.
  auto isOutputView = [&](Operation *op) {
    return members.contains(op) && isStridedViewOp(op) &&
           !feedsOnlyOperands(op, contraction, members, sequenceConcats);
  };
  for (Operation *op : ops) {
    if (!isOutputView(op))
      continue;
    if (isa<Conv2DOp>(contraction)) {
      why = describeOp(op) + " cannot run in a conv2d epilogue (only "
                             "elementwise ops can)";
      return nullptr;
    }
    bool stored = op->use_empty();
    for (Operation *user : op->getUsers()) {
      if (!members.contains(user)) {
        stored = true;
      } else if (!isStridedViewOp(user)) {
        why = describeOp(user) + " reads " + describeOp(op) +
              "; a GEMM epilogue computes one value per element of the "
              "matmul's output, and only its results are written through "
              "views";
        return nullptr;
      }
    }
    if (!stored)
      continue;
    std::optional<StridedView> layout =
        getStoreLayout(op->getResult(0), isOutputView, why);
    if (!layout)
      return nullptr;
    Operation *def = layout->base.getDefiningOp();
    if (!def || !members.contains(def)) {
      why = describeOp(op) + " views an input of the kernel; a GEMM "
                             "epilogue reads its inputs as they are";
      return nullptr;
    }
    if (layout->strides.back() != 1) {
      why = describeOp(op) + " moves the columns of " +
            describeOp(contraction) +
            "'s output apart; the GEMM stores runs of consecutive columns, "
            "so the transpose is a kernel of its own";
      return nullptr;
    }
    // With an even N the epilogue stores column pairs as one vector: a
    // slice must keep every pair whole and aligned.
    const int64_t n =
        cast<RankedTensorType>(contraction->getResult(0).getType())
            .getShape()
            .back();
    auto odd = [](int64_t v) { return v % 2 != 0; };
    if (!layout->lower.empty() && n % 2 == 0 &&
        (odd(layout->offset) || odd(layout->lower.back()) ||
         odd(layout->upper.back()) ||
         llvm::any_of(ArrayRef<int64_t>(layout->strides).drop_back(), odd))) {
      why = describeOp(op) + " starts or ends at an odd column or row "
                             "pitch; the GEMM stores pairs of columns";
      return nullptr;
    }
  }
  auto output = cast<RankedTensorType>(contraction->getResult(0).getType());
  for (Operation *op : ops) {
    if (op == contraction || isSplatConstant(op) || isStridedViewOp(op) ||
        prologueOps.contains(op) || sequenceConcats.contains(op))
      continue;
    if (!isElementwise(op)) {
      why = describeOp(op) + " cannot run in a GEMM epilogue (only "
                             "elementwise ops can)";
      return nullptr;
    }
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (type.getShape() != output.getShape()) {
      why = describeOp(op) + " has shape " + formatShape(type.getShape()) +
            " but the " + contraction->getName().stripDialect().str() +
            "'s output is " + formatShape(output.getShape()) +
            "; an epilogue computes one value per output element";
      return nullptr;
    }
  }
  return contraction;
}

} // namespace opfuse::fuse
