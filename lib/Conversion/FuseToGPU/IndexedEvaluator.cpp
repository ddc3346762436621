//===- IndexedEvaluator.cpp - Group bodies evaluated at indices -----------===//

#include "IndexedEvaluator.h"

#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "llvm/ADT/SmallPtrSet.h"

#include <functional>
#include <numeric>

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

namespace {
int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

/// The constant values of a gather's indices, seen through the group's
/// inputs (fusion passes constants in as arguments); none where they are
/// computed.
std::optional<SmallVector<int64_t>> constantIndices(GroupOp group,
                                                    Value indices) {
  if (auto argument = dyn_cast<BlockArgument>(indices))
    if (argument.getOwner() == &group.getBody().front())
      indices = group.getOperand(argument.getArgNumber());
  auto constant = indices.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto dense = dyn_cast<DenseIntElementsAttr>(constant.getValue());
  if (!dense)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &value : dense.getValues<APInt>())
    values.push_back(value.getSExtValue());
  return values;
}

/// Where a gather along the vector's axis reads, for every vector of `vec`
/// lanes starting at a multiple of `vec`, only that vector's own elements
/// of the data, in the same order for all (a group of 4 input channels read
/// by each of its 4 output channels: lanes 0-3 read element ci, lanes 4-7
/// element 4 + ci), the element of that vector each lane reads; else none.
std::optional<SmallVector<int64_t>>
inVectorPattern(ArrayRef<int64_t> indices, int64_t dataExtent, int64_t vec) {
  const int64_t count = indices.size();
  if (vec < 2 || count % vec != 0 || dataExtent < count)
    return std::nullopt;
  SmallVector<int64_t> pattern;
  for (int64_t start = 0; start < count; start += vec)
    for (int64_t lane = 0; lane < vec; ++lane) {
      const int64_t within = indices[start + lane] - start;
      if (within < 0 || within >= vec)
        return std::nullopt;
      if (start == 0)
        pattern.push_back(within);
      else if (pattern[lane] != within)
        return std::nullopt;
    }
  return pattern;
}

} // namespace

IndexDim scaleCongruence(const IndexDim &in, int64_t factor, int64_t offset) {
  IndexDim out;
  out.laneStride = in.laneStride * factor;
  if (in.modulus == 0) {
    out.modulus = 0;
    out.residue = in.residue * factor + offset;
  } else {
    out.modulus = in.modulus * factor;
    out.residue = (in.residue * factor + offset) % out.modulus;
    if (out.residue < 0)
      out.residue += out.modulus;
  }
  return out;
}

IndexDim ViewKernel::linearize(const Index &index) {
  SmallVector<int64_t> strides = rowMajorStrides(index.shape);
  IndexDim linear = constantDim(0);
  int64_t modulus = 0, residue = 0;
  for (auto [dim, stride] : llvm::zip(index.dims, strides)) {
    if (index.shape.empty())
      break;
    IndexDim term = scaleCongruence(dim, stride, 0);
    linear.value = arith::AddIOp::create(
        b, loc, linear.value,
        arith::MulIOp::create(b, loc, dim.value, kb.constant(stride)));
    linear.laneStride += term.laneStride;
    if (term.modulus == 0) {
      residue += term.residue;
    } else {
      modulus = gcd(modulus, term.modulus);
      residue += term.residue;
    }
  }
  linear.modulus = modulus;
  linear.residue = modulus == 0 ? residue : residue % modulus;
  return linear;
}

Index ViewKernel::delinearize(const IndexDim &linear, ArrayRef<int64_t> shape) {
  Index index;
  index.shape.assign(shape.begin(), shape.end());
  if (shape.empty())
    return index;
  SmallVector<Value> values = kb.decompose(linear.value, shape);
  for (Value value : values)
    index.dims.push_back({value, 0, 1, 0});
  IndexDim &inner = index.dims.back();
  const int64_t extent = shape.back();
  inner.modulus = linear.modulus == 0 ? 0 : gcd(linear.modulus, extent);
  inner.residue = linear.modulus == 0
                      ? linear.residue % extent
                      : (inner.modulus ? linear.residue % inner.modulus : 0);
  if (linear.laneStride == 0)
    return index;
  // Lanes stay in the innermost dimension when they step by one from a
  // multiple of the vector and the dimension holds whole vectors.
  const bool aligned = linear.modulus != 0 && linear.modulus % vec == 0 &&
                       linear.residue % vec == 0;
  if (linear.laneStride == 1 && extent % vec == 0 && aligned)
    inner.laneStride = 1;
  else
    lanesLost = true;
  return index;
}

Index ViewKernel::convert(const Index &index, ArrayRef<int64_t> shape) {
  if (ArrayRef<int64_t>(index.shape) == shape)
    return index;
  const int64_t rank = shape.size(), from = index.shape.size();
  bool broadcast = rank <= from;
  for (int64_t d = 0; broadcast && d < rank; ++d)
    broadcast = shape[d] == 1 || shape[d] == index.shape[from - rank + d];
  if (broadcast) {
    Index result;
    result.shape.assign(shape.begin(), shape.end());
    for (int64_t d = 0; d < rank; ++d)
      result.dims.push_back(shape[d] == 1 ? constantDim(0)
                                          : index.dims[from - rank + d]);
    return result;
  }
  // A reshape: the same element in row-major order.
  return delinearize(linearize(index), shape);
}

GroupEvaluator::Lanes ViewKernel::load(BlockArgument argument,
                                       const Index &index) {
  Type type = cast<RankedTensorType>(argument.getType()).getElementType();
  Value pointer = func.getArgument(argument.getArgNumber());
  IndexDim offset = linearize(index);
  // Under a guard the load reads element 0 where the guard fails (always
  // in bounds, aligned for any vector), and the concat discards it: no
  // branch, so the loads of all inputs are in flight together.
  auto guarded = [&](Value at) -> Value {
    if (!loadGuard)
      return at;
    return arith::SelectOp::create(b, loc, loadGuard, at, kb.constant(0));
  };
  if (vec == 1 || offset.laneStride == 0) {
    Value one = kb.load(pointer, type, guarded(offset.value), 1).front();
    return GroupEvaluator::Lanes(vec, one);
  }
  const bool aligned = offset.modulus == 0 ? offset.residue % vec == 0
                                           : offset.modulus % vec == 0 &&
                                                 offset.residue % vec == 0;
  if (offset.laneStride == 1 && aligned)
    return kb.load(pointer, type, guarded(offset.value), vec);
  // Strided or unaligned lanes: one element each.
  GroupEvaluator::Lanes lanes;
  for (int64_t lane = 0; lane < vec; ++lane) {
    Value at =
        lane == 0
            ? offset.value
            : arith::AddIOp::create(b, loc, offset.value,
                                    kb.constant(lane * offset.laneStride));
    lanes.push_back(kb.load(pointer, type, guarded(at), 1).front());
  }
  return lanes;
}

FailureOr<std::optional<GroupEvaluator::Lanes>>
ViewEvaluator::provide(Value value, int context) {
  const Index own = kernel.index(ownContext(value, context));
  auto wrap = [](FailureOr<Lanes> lanes) -> FailureOr<std::optional<Lanes>> {
    if (failed(lanes))
      return failure();
    return std::optional<Lanes>(std::move(*lanes));
  };
  FailureOr<std::optional<Lanes>> first = provideFirst(value, own);
  if (failed(first) || *first)
    return first;
  if (auto argument = dyn_cast<BlockArgument>(value))
    return std::optional<Lanes>(kernel.load(argument, own));
  Operation *op = value.getDefiningOp();
  OpBuilder &b = kernel.b;
  Location loc = kernel.loc;
  if (auto reshape = dyn_cast<ReshapeOp>(op))
    return wrap(evaluateAt(
        reshape.getInput(),
        kernel.delinearize(kernel.linearize(own),
                           reshape.getInput().getType().getShape())));
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    // Result dimension i is input dimension permutation[i].
    Index in;
    in.shape.assign(transpose.getInput().getType().getShape().begin(),
                    transpose.getInput().getType().getShape().end());
    in.dims.resize(own.dims.size());
    for (auto [i, p] : llvm::enumerate(transpose.getPermutation()))
      in.dims[p] = own.dims[i];
    return wrap(evaluateAt(transpose.getInput(), std::move(in)));
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    Index in;
    in.shape.assign(slice.getInput().getType().getShape().begin(),
                    slice.getInput().getType().getShape().end());
    for (auto [d, dim] : llvm::enumerate(own.dims)) {
      const int64_t offset = slice.getOffsets()[d],
                    stride = slice.getStrides()[d];
      IndexDim mapped = scaleCongruence(dim, stride, offset);
      mapped.value = dim.value;
      if (stride != 1)
        mapped.value = arith::MulIOp::create(b, loc, dim.value,
                                             kernel.kb.constant(stride));
      if (offset != 0)
        mapped.value = arith::AddIOp::create(b, loc, mapped.value,
                                             kernel.kb.constant(offset));
      in.dims.push_back(mapped);
    }
    return wrap(evaluateAt(slice.getInput(), std::move(in)));
  }
  if (auto concatOp = dyn_cast<ConcatOp>(op))
    return wrap(concat(concatOp, own));
  if (auto gatherOp = dyn_cast<GatherOp>(op))
    return wrap(gather(gatherOp, own));
  return std::optional<Lanes>();
}

namespace {

/// The most ops (per input) a concat evaluates for every input.
constexpr int64_t kMaxSideBySideOps = 8;

/// Whether the inputs of `op` are better evaluated side by side than
/// through a branch: every input is computed, within the group, by at most
/// kMaxSideBySideOps cheap ops (data movement, sign changes, adds,
/// products, comparisons, selects, casts), and a branch would hold back
/// loads: an input reads two or more values, or the group reads some
/// input other than through the concat. Division and transcendental
/// functions keep the branch, and so does a concat of plain reads that is
/// all the group reads (the extra load would be all the change).
bool sideBySidePays(ConcatOp op) {
  llvm::SmallPtrSet<Operation *, 16> slice = {op.getOperation()};
  bool severalReads = false;
  for (Value input : op.getInputs()) {
    int64_t ops = 0, reads = isa<BlockArgument>(input) ? 1 : 0;
    SmallVector<Value> work = {input};
    while (!work.empty()) {
      Value value = work.pop_back_val();
      // A guarded load reads element 0 of its input: there must be one.
      if (isa<BlockArgument>(value) &&
          cast<RankedTensorType>(value.getType()).getNumElements() == 0)
        return false;
      Operation *def = value.getDefiningOp();
      if (!def || !slice.insert(def).second)
        continue;
      if (!isa<ConcatOp, SliceOp, ReshapeOp, TransposeOp, BroadcastToOp, NegOp,
               AbsOp, ReluOp, AddOp, SubOp, MulOp, MaxOp, MinOp, CompareOp,
               SelectOp, CastOp, ConstantOp>(def) ||
          ++ops > kMaxSideBySideOps)
        return false;
      reads += llvm::count_if(def->getOperands(), [](Value operand) {
        return isa<BlockArgument>(operand);
      });
      llvm::append_range(work, def->getOperands());
    }
    severalReads |= reads > 1;
  }
  return severalReads ||
         llvm::any_of(op->getBlock()->getArguments(), [&](BlockArgument arg) {
           return llvm::any_of(arg.getUsers(), [&](Operation *user) {
             return !slice.contains(user);
           });
         });
}

} // namespace

// The input whose range along the axis holds the index: only that input is
// read. A vector lies in one input when the lanes run along another axis,
// or when every input holds whole vectors. Cheap inputs are evaluated side
// by side, each input's loads guarded by its range, and selected, where
// the group reads other inputs too; others through a chain of branches.
FailureOr<GroupEvaluator::Lanes> ViewEvaluator::concat(ConcatOp op,
                                                       const Index &index) {
  const int64_t axis = op.getAxis();
  const IndexDim &along = index.dims[axis];
  if (along.laneStride != 0) {
    bool whole = along.laneStride == 1 && along.modulus != 0 &&
                 along.modulus % kernel.vec == 0 &&
                 along.residue % kernel.vec == 0;
    for (Value input : op.getInputs())
      whole &= cast<RankedTensorType>(input.getType()).getDimSize(axis) %
                   kernel.vec ==
               0;
    if (!whole)
      kernel.lanesLost = true;
  }
  OpBuilder &b = kernel.b;
  Location loc = kernel.loc;
  Type laneType = getComputeType(op.getType().getElementType());
  SmallVector<int64_t> starts;
  int64_t start = 0;
  for (Value input : op.getInputs()) {
    starts.push_back(start);
    start += cast<RankedTensorType>(input.getType()).getDimSize(axis);
  }
  // Input k at the index shifted to its start, in a memo of its own (what
  // a branch computes does not dominate the code after the branch).
  auto inputLanes = [&](size_t k) -> FailureOr<Lanes> {
    Value input = op.getInputs()[k];
    Index shifted;
    auto shape = cast<RankedTensorType>(input.getType()).getShape();
    shifted.shape.assign(shape.begin(), shape.end());
    shifted.dims = index.dims;
    if (starts[k] != 0) {
      shifted.dims[axis] = scaleCongruence(along, 1, -starts[k]);
      shifted.dims[axis].value = arith::SubIOp::create(
          b, loc, along.value, kernel.kb.constant(starts[k]));
    }
    Memo branchMemo = memoCopy();
    ConversionCache branchConversions = conversions;
    std::unique_ptr<ViewEvaluator> branch =
        makeBranch(branchMemo, branchConversions);
    return branch->evaluate(input, kernel.intern(std::move(shifted)));
  };
  // Whether the index lies before input k + 1.
  auto before = [&](size_t k) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, along.value,
                                 kernel.kb.constant(starts[k + 1]));
  };
  if (sideBySidePays(op)) {
    SmallVector<Value> ends;
    for (size_t k = 0; k + 1 < starts.size(); ++k)
      ends.push_back(before(k));
    const Value outer = kernel.loadGuard;
    SmallVector<Lanes> inputs;
    for (size_t k = 0; k < starts.size(); ++k) {
      // Input k's range: past input k - 1's end and before its own.
      Value guard = k + 1 < starts.size() ? ends[k] : Value();
      if (k > 0) {
        Value past = arith::XOrIOp::create(
            b, loc, ends[k - 1],
            arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
        guard = guard ? arith::AndIOp::create(b, loc, past, guard).getResult()
                      : past;
      }
      kernel.loadGuard =
          outer ? arith::AndIOp::create(b, loc, outer, guard).getResult()
                : guard;
      FailureOr<Lanes> lanes = inputLanes(k);
      kernel.loadGuard = outer;
      if (failed(lanes))
        return failure();
      inputs.push_back(std::move(*lanes));
    }
    Lanes result = inputs.back();
    for (size_t k = starts.size() - 1; k-- > 0;)
      for (auto [lane, value] : llvm::enumerate(result))
        value =
            arith::SelectOp::create(b, loc, ends[k], inputs[k][lane], value);
    return result;
  }
  std::function<FailureOr<Lanes>(size_t)> select =
      [&](size_t k) -> FailureOr<Lanes> {
    if (k + 1 == starts.size())
      return inputLanes(k);
    Value here = before(k);
    auto branch =
        scf::IfOp::create(b, loc, SmallVector<Type>(kernel.vec, laneType), here,
                          /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    FailureOr<Lanes> taken = inputLanes(k);
    if (failed(taken))
      return failure();
    scf::YieldOp::create(b, loc, *taken);
    b.setInsertionPointToStart(&branch.getElseRegion().front());
    FailureOr<Lanes> rest = select(k + 1);
    if (failed(rest))
      return failure();
    scf::YieldOp::create(b, loc, *rest);
    return Lanes(branch.getResults().begin(), branch.getResults().end());
  };
  return select(0);
}

// The index tensor is read at the index's dimensions it spans, then the
// data at the index it holds (clamped into the axis: an index out of range
// is undefined, and must not read outside the buffer).
FailureOr<GroupEvaluator::Lanes> ViewEvaluator::gather(GatherOp op,
                                                       const Index &index) {
  const int64_t axis = op.getAxis();
  auto indicesType = op.getIndices().getType();
  const int64_t span = indicesType.getRank();
  // Along the vector's axis, from a vector-aligned start: where constant
  // indices keep each vector within its own elements of the data, the
  // vector is read whole and its lanes permuted (no load lane by lane).
  const IndexDim &along = index.dims[axis];
  const bool aligned = along.modulus == 0 ? along.residue % kernel.vec == 0
                                          : along.modulus % kernel.vec == 0 &&
                                                along.residue % kernel.vec == 0;
  if (span == 1 && along.laneStride == 1 && aligned &&
      axis + 1 == int64_t(index.dims.size())) {
    std::optional<SmallVector<int64_t>> values =
        constantIndices(kernel.group, op.getIndices());
    std::optional<SmallVector<int64_t>> pattern =
        values
            ? inVectorPattern(*values, op.getData().getType().getDimSize(axis),
                              kernel.vec)
            : std::nullopt;
    if (pattern) {
      Index data = index;
      auto shape = op.getData().getType().getShape();
      data.shape.assign(shape.begin(), shape.end());
      FailureOr<Lanes> whole = evaluateAt(op.getData(), std::move(data));
      if (failed(whole))
        return failure();
      Lanes permuted;
      for (int64_t lane : *pattern)
        permuted.push_back((*whole)[lane]);
      return permuted;
    }
  }
  Index at;
  at.shape.assign(indicesType.getShape().begin(), indicesType.getShape().end());
  for (int64_t d = 0; d < span; ++d) {
    at.dims.push_back(index.dims[axis + d]);
    if (index.dims[axis + d].laneStride != 0)
      kernel.lanesLost = true;
  }
  FailureOr<Lanes> picked = evaluateAt(op.getIndices(), std::move(at));
  if (failed(picked))
    return failure();
  OpBuilder &b = kernel.b;
  Location loc = kernel.loc;
  Type indexType = kernel.kb.getIndexType();
  const int64_t extent = op.getData().getType().getDimSize(axis);
  Value row = picked->front();
  Type rowType = row.getType();
  auto bound = [&](int64_t value) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(rowType, value));
  };
  row = arith::MaxSIOp::create(b, loc, row, bound(0));
  row = arith::MinSIOp::create(b, loc, row, bound(extent - 1));
  if (rowType.getIntOrFloatBitWidth() < indexType.getIntOrFloatBitWidth())
    row = arith::ExtUIOp::create(b, loc, indexType, row);
  else if (rowType.getIntOrFloatBitWidth() > indexType.getIntOrFloatBitWidth())
    row = arith::TruncIOp::create(b, loc, indexType, row);
  Index data;
  auto shape = op.getData().getType().getShape();
  data.shape.assign(shape.begin(), shape.end());
  for (int64_t d = 0; d < axis; ++d)
    data.dims.push_back(index.dims[d]);
  data.dims.push_back({row, 0, 1, 0});
  for (int64_t d = axis + span; d < int64_t(index.dims.size()); ++d)
    data.dims.push_back(index.dims[d]);
  return evaluateAt(op.getData(), std::move(data));
}

} // namespace opfuse
