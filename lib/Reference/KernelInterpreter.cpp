//===- KernelInterpreter.cpp - Run emitted kernels on the host ------------===//
//
// A block runs in lockstep: each op runs for every active thread before
// the next op starts, divergent scf.if and scf.for narrow the active set,
// and warps exchange values through gpu.shuffle. Each thread's values are
// lanes of scalars (KernelValues.h); arith and math ops run lane by lane in
// KernelLaneOps.cpp, warp-wide matrix ops and asynchronous copies in
// KernelWarpRun.cpp. Approximate functions of inline PTX (ex2.approx,
// rcp.approx, ...) are computed exactly and rounded to their type: a kernel
// is judged against the reference with a tolerance, not bit for bit.
//
// Lockstep would hide a missing barrier, so shared memory keeps, per
// element, the thread and the barrier interval of its last write and
// reads: a thread that reads another's write, or writes over another's
// read, within one interval is reported as a race.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Reference/KernelInterpreter.h"

#include "KernelBlockRun.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cmath>
#include <cstring>
#include <deque>

using namespace mlir;

namespace opfuse::reference::kernel {
namespace {

/// The approximate f32 functions of inline PTX that kernels use.
constexpr StringLiteral kApproximations[] = {
    "ex2.approx", "rcp.approx", "rsqrt.approx", "tanh.approx", "lg2.approx"};

/// Flushes an f32 subnormal to zero, as the .ftz forms of PTX do.
double flushSubnormal(double v) {
  return std::fabs(v) < 0x1p-126 ? std::copysign(0.0, v) : v;
}

} // namespace

LogicalResult BlockRun::run(Block &body, const Mask &mask,
                            SmallVectorImpl<PerThread> *yielded) {
  for (Operation &op : body) {
    if (isa<scf::YieldOp>(op)) {
      if (yielded)
        for (Value v : op.getOperands())
          yielded->push_back(env[v]);
      return success();
    }
    if (isa<gpu::ReturnOp>(op))
      return success();
    if (failed(step(op, mask)))
      return failure();
  }
  return success();
}

LogicalResult BlockRun::step(Operation &op, const Mask &mask) {
  if (auto s = dyn_cast<scf::IfOp>(op))
    return runIf(s, mask);
  if (auto f = dyn_cast<scf::ForOp>(op))
    return runFor(f, mask);
  if (auto s = dyn_cast<gpu::ShuffleOp>(op))
    return shuffle(s, mask);
  if (auto s = dyn_cast<NVVM::ShflOp>(op))
    return shfl(s, mask);
  if (auto l = dyn_cast<NVVM::LdMatrixOp>(op))
    return ldmatrix(l, mask);
  if (auto m = dyn_cast<NVVM::MmaOp>(op))
    return mma(m, mask);
  if (isa<gpu::BarrierOp>(op)) {
    for (int64_t t = 0; t < blockSize; ++t)
      if (!mask[t]) {
        thread = t;
        return fail(op, "is reached by some threads of the block only");
      }
    ++interval;
    return success();
  }
  if (kernel::isLaneOp(op))
    return laneWise(op, mask);
  if (isa<arith::ConstantOp, LLVM::ConstantOp>(op)) {
    // The same in every thread: evaluated once.
    thread = 0;
    for (int64_t t = 0; t < blockSize; ++t)
      if (mask[t]) {
        thread = t;
        break;
      }
    Attribute value = isa<arith::ConstantOp>(op)
                          ? Attribute(cast<arith::ConstantOp>(op).getValue())
                          : cast<LLVM::ConstantOp>(op).getValue();
    if (failed(constant(op, value)))
      return failure();
    Lanes lanes = env[op.getResult(0)][thread];
    PerThread &out = env[op.getResult(0)];
    for (int64_t t = 0; t < blockSize; ++t)
      if (mask[t])
        out[t] = lanes;
    thread = 0;
    return success();
  }
  return forEach(mask, [&] { return stepThread(op); });
}

LogicalResult BlockRun::laneWise(Operation &op, const Mask &mask) {
  PerThread &out = env[op.getResult(0)];
  out.resize(blockSize);
  SmallVector<const PerThread *, 3> operands;
  for (Value operand : op.getOperands())
    operands.push_back(&env[operand]);
  const int64_t n = laneCount(op.getResult(0).getType());
  SmallVector<Scalar, 3> in;
  for (thread = 0; thread < blockSize; ++thread) {
    if (!mask[thread])
      continue;
    Lanes lanes;
    for (int64_t lane = 0; lane < n; ++lane) {
      in.clear();
      for (const PerThread *values : operands) {
        if (values->size() != static_cast<size_t>(blockSize) ||
            (*values)[thread].empty())
          return fail(op, "reads a value it never computed");
        const Lanes &l = (*values)[thread];
        const Scalar &s = l.size() == 1 ? l.front() : l[lane];
        if (s.kind == Scalar::Poison)
          return fail(op, "computes on poison");
        in.push_back(s);
      }
      kernel::LaneResult r = kernel::evaluateLaneOp(op, in);
      if (r.kind == kernel::LaneResult::Error)
        return fail(op, r.error);
      if (r.kind == kernel::LaneResult::Unknown)
        return fail(op, "is not interpreted");
      lanes.push_back(r.value);
    }
    out[thread] = std::move(lanes);
  }
  thread = 0;
  return success();
}

LogicalResult BlockRun::runIf(scf::IfOp s, const Mask &mask) {
  Mask thenMask(blockSize, 0), elseMask(blockSize, 0);
  if (failed(forEach(mask, [&]() -> LogicalResult {
        const Scalar &c = one(s.getCondition());
        if (c.kind != Scalar::Int)
          return fail(*s, "branches on poison");
        (c.bits ? thenMask : elseMask)[thread] = 1;
        return success();
      })))
    return failure();
  auto branch = [&](Region &region, const Mask &m) -> LogicalResult {
    if (region.empty() || llvm::none_of(m, [](char c) { return c; }))
      return success();
    SmallVector<PerThread> yielded;
    if (failed(run(region.front(), m, &yielded)))
      return failure();
    for (auto [result, values] : llvm::zip(s.getResults(), yielded))
      for (int64_t t = 0; t < blockSize; ++t)
        if (m[t]) {
          thread = t;
          bind(result, values[t]);
        }
    thread = 0;
    return success();
  };
  if (failed(branch(s.getThenRegion(), thenMask)))
    return failure();
  return branch(s.getElseRegion(), elseMask);
}

LogicalResult BlockRun::runFor(scf::ForOp f, const Mask &mask) {
  const bool isUnsigned = f.getUnsignedCmp();
  const unsigned width = intWidth(f.getInductionVar().getType());
  std::vector<int64_t> index(blockSize), upper(blockSize), by(blockSize);
  auto value = [&](Value v) {
    const Scalar &s = one(v);
    return isUnsigned ? static_cast<int64_t>(s.bits) : s.signedValue();
  };
  if (failed(forEach(mask, [&]() -> LogicalResult {
        index[thread] = value(f.getLowerBound());
        upper[thread] = value(f.getUpperBound());
        by[thread] = value(f.getStep());
        if (by[thread] <= 0)
          return fail(*f, "steps by " + Twine(by[thread]));
        for (auto [arg, init] :
             llvm::zip(f.getRegionIterArgs(), f.getInitArgs()))
          bind(arg, get(init));
        return success();
      })))
    return failure();
  while (true) {
    Mask live(blockSize, 0);
    bool any = false;
    for (int64_t t = 0; t < blockSize; ++t)
      if (mask[t] && index[t] < upper[t]) {
        live[t] = 1;
        any = true;
        thread = t;
        bind(f.getInductionVar(), {Scalar::integer(index[t], width)});
      }
    thread = 0;
    if (!any)
      break;
    SmallVector<PerThread> next;
    if (failed(run(*f.getBody(), live, &next)))
      return failure();
    for (int64_t t = 0; t < blockSize; ++t)
      if (live[t]) {
        thread = t;
        for (auto [arg, values] : llvm::zip(f.getRegionIterArgs(), next))
          bind(arg, values[t]);
        index[t] += by[t];
      }
    thread = 0;
  }
  return forEach(mask, [&] {
    for (auto [result, arg] : llvm::zip(f.getResults(), f.getRegionIterArgs()))
      bind(result, get(arg));
    return success();
  });
}

LogicalResult BlockRun::shuffle(gpu::ShuffleOp s, const Mask &mask) {
  PerThread result(blockSize);
  PerThread valid(blockSize);
  if (failed(forEach(mask, [&]() -> LogicalResult {
        const int64_t lane = thread % 32;
        const int64_t offset = one(s.getOffset()).bits;
        const int64_t width = one(s.getWidth()).bits;
        if (width <= 0 || width > 32)
          return fail(*s, "has a width of " + Twine(width));
        const int64_t first = lane - lane % width;
        int64_t source = 0;
        switch (s.getMode()) {
        case gpu::ShuffleMode::XOR:
          source = lane ^ offset;
          break;
        case gpu::ShuffleMode::DOWN:
          source = lane + offset;
          break;
        case gpu::ShuffleMode::UP:
          source = lane - offset;
          break;
        case gpu::ShuffleMode::IDX:
          source = first + offset;
          break;
        }
        const bool inRange = source >= first && source < first + width;
        const int64_t from = thread - lane + source;
        if (inRange && (from >= blockSize || !mask[from]))
          return fail(*s,
                      "reads lane " + Twine(source) + ", which is not active");
        result[thread] = inRange ? env[s.getValue()][from] : get(s.getValue());
        valid[thread] = {Scalar::integer(inRange, 1)};
        return success();
      })))
    return failure();
  for (int64_t t = 0; t < blockSize; ++t)
    if (mask[t]) {
      thread = t;
      bind(s.getShuffleResult(), result[t]);
      bind(s.getValid(), valid[t]);
    }
  thread = 0;
  return success();
}

FailureOr<std::pair<Shared *, int64_t>>
BlockRun::sharedElement(Operation &op, Value memref, ValueRange indices,
                        int64_t count) {
  auto it = sharedOf.find(memref);
  if (it == sharedOf.end())
    return fail(op, "accesses a memref that is not a workgroup "
                    "attribution");
  Shared &s = shared[it->second];
  ArrayRef<int64_t> shape = s.type.getShape();
  int64_t linear = 0;
  for (auto [d, index] : llvm::enumerate(indices)) {
    const int64_t i = one(index).bits;
    if (i >= shape[d])
      return fail(op, "indexes dimension " + Twine(d) + " at " + Twine(i) +
                          " of " + Twine(shape[d]));
    linear = linear * shape[d] + i;
  }
  if (linear + count > s.type.getNumElements() ||
      (indices.size() > 0 &&
       one(indices.back()).bits + count > static_cast<uint64_t>(shape.back())))
    return fail(op, "accesses " + Twine(count) + " elements past a row");
  return std::make_pair(&s, linear);
}

LogicalResult BlockRun::readShared(Operation &op, Value memref,
                                   ValueRange indices, Type type,
                                   Value result) {
  const int64_t count = laneCount(type);
  auto at = sharedElement(op, memref, indices, count);
  if (failed(at))
    return failure();
  auto [s, linear] = *at;
  Type element = s->type.getElementType();
  if (failed(noteRead(op, *s, linear, count)))
    return failure();
  Lanes lanes;
  for (int64_t i = linear; i < linear + count; ++i)
    lanes.push_back(decode(element, &s->bytes[i * byteSize(element)]));
  bind(result, std::move(lanes));
  return success();
}

LogicalResult BlockRun::noteRead(Operation &op, Shared &s, int64_t first,
                                 int64_t count) {
  for (int64_t i = first; i < first + count; ++i) {
    const Shared::Access &w = s.lastWrite[i];
    if (w.interval == interval && w.thread != thread)
      return fail(op, "reads an element thread " + Twine(w.thread) +
                          " wrote since the last barrier");
    Shared::Access &r = s.lastRead[i];
    r.thread = r.interval == interval && r.thread != thread ? -2 : thread;
    r.interval = interval;
  }
  return success();
}

LogicalResult BlockRun::noteWrite(Operation &op, Shared &s, int64_t first,
                                  int64_t count) {
  for (int64_t i = first; i < first + count; ++i) {
    const Shared::Access &r = s.lastRead[i];
    if (r.interval == interval && r.thread != thread)
      return fail(op, "writes an element another thread read since the "
                      "last barrier");
    const Shared::Access &w = s.lastWrite[i];
    if (w.interval == interval && w.thread != thread)
      return fail(op, "writes an element thread " + Twine(w.thread) +
                          " wrote since the last barrier");
    s.lastWrite[i] = {interval, thread};
  }
  return success();
}

LogicalResult BlockRun::writeShared(Operation &op, Value memref,
                                    ValueRange indices, Value value) {
  const Lanes &lanes = get(value);
  auto at = sharedElement(op, memref, indices, lanes.size());
  if (failed(at))
    return failure();
  auto [s, linear] = *at;
  Type element = s->type.getElementType();
  for (const Scalar &lane : lanes)
    if (lane.kind == Scalar::Poison)
      return fail(op, "stores poison");
  if (failed(noteWrite(op, *s, linear, lanes.size())))
    return failure();
  for (auto [k, lane] : llvm::enumerate(lanes))
    encode(element, lane, &s->bytes[(linear + k) * byteSize(element)]);
  return success();
}

LogicalResult BlockRun::inlineAsm(LLVM::InlineAsmOp asmOp) {
  Operation &op = *asmOp;
  StringRef text = asmOp.getAsmString();
  // Grid-dependency control orders kernels, not threads.
  if (op.getNumResults() == 0 && text.starts_with("griddepcontrol"))
    return success();
  if (op.getNumResults() != 1 || op.getNumOperands() != 1 ||
      !op.getResult(0).getType().isF32())
    return fail(op, "'" + text + "' is not interpreted");
  const Scalar &x = one(op.getOperand(0));
  const bool ftz = text.contains(".ftz");
  double in = ftz ? flushSubnormal(x.value) : x.value, out;
  if (text.starts_with("ex2.approx"))
    out = std::exp2(in);
  else if (text.starts_with("rcp.approx"))
    out = 1.0 / in;
  else if (text.starts_with("rsqrt.approx"))
    out = 1.0 / std::sqrt(in);
  else if (text.starts_with("tanh.approx"))
    out = std::tanh(in);
  else if (text.starts_with("lg2.approx"))
    out = std::log2(in);
  else
    return fail(op, "'" + text + "' is not interpreted");
  out = static_cast<float>(out);
  bind(op.getResult(0), {Scalar::real(ftz ? flushSubnormal(out) : out)});
  return success();
}

LogicalResult BlockRun::stepThread(Operation &op) {
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp, LLVM::ConstantOp>(
          [&](auto c) { return constant(op, c.getValue()); })
      .Case<LLVM::PoisonOp>([&](auto p) {
        bind(p.getResult(),
             Lanes(laneCount(p.getResult().getType()), Scalar()));
        return success();
      })
      .Case<arith::SelectOp>([&](arith::SelectOp s) {
        const Scalar &c = one(s.getCondition());
        if (c.kind != Scalar::Int)
          return fail(op, "selects on poison");
        bind(s.getResult(), get(c.bits ? s.getTrueValue() : s.getFalseValue()));
        return success();
      })
      .Case<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(
          [&](auto id) { return index(id); })
      .Case<LLVM::InlineAsmOp>(
          [&](LLVM::InlineAsmOp asmOp) { return inlineAsm(asmOp); })
      .Case<LLVM::GEPOp>([&](LLVM::GEPOp gep) {
        Scalar p = one(gep.getBase());
        if (p.kind != Scalar::Pointer)
          return fail(op, "offsets a value that is not a pointer");
        const int64_t size = byteSize(gep.getElemType());
        if (size == 0)
          return fail(op, "has an element type of unknown size");
        for (auto index : gep.getIndices()) {
          int64_t i;
          if (auto attr = dyn_cast<IntegerAttr>(index))
            i = attr.getInt();
          else
            i = one(cast<Value>(index)).signedValue();
          p.offset += i * size;
        }
        bind(gep.getResult(), {p});
        return success();
      })
      .Case<LLVM::LoadOp>([&](LLVM::LoadOp load) {
        Type type = load.getResult().getType();
        FailureOr<uint8_t *> at =
            address(op, one(load.getAddr()), type,
                    load.getAlignment().value_or(1), Access::Read);
        if (failed(at))
          return failure();
        Lanes lanes;
        const int64_t width = byteSize(scalarType(type));
        for (int64_t lane = 0; lane < laneCount(type); ++lane)
          lanes.push_back(decode(scalarType(type), *at + lane * width));
        bind(load.getResult(), std::move(lanes));
        return success();
      })
      .Case<LLVM::StoreOp>([&](LLVM::StoreOp store) {
        Type type = store.getValue().getType();
        FailureOr<uint8_t *> at =
            address(op, one(store.getAddr()), type,
                    store.getAlignment().value_or(1), Access::Write);
        if (failed(at))
          return failure();
        const int64_t width = byteSize(scalarType(type));
        const Lanes &lanes = get(store.getValue());
        for (auto [lane, s] : llvm::enumerate(lanes)) {
          if (s.kind == Scalar::Poison)
            return fail(op, "stores poison in lane " + Twine(lane));
          encode(scalarType(type), s, *at + lane * width);
        }
        return success();
      })
      .Case<LLVM::ExtractElementOp>([&](LLVM::ExtractElementOp e) {
        const int64_t i = one(e.getPosition()).bits;
        const Lanes &v = get(e.getVector());
        if (i >= static_cast<int64_t>(v.size()))
          return fail(op, "reads lane " + Twine(i) + " of " + Twine(v.size()));
        bind(e.getResult(), {v[i]});
        return success();
      })
      .Case<LLVM::InsertElementOp>([&](LLVM::InsertElementOp e) {
        const int64_t i = one(e.getPosition()).bits;
        Lanes v = get(e.getVector());
        if (i >= static_cast<int64_t>(v.size()))
          return fail(op, "writes lane " + Twine(i) + " of " + Twine(v.size()));
        v[i] = one(e.getValue());
        bind(e.getResult(), std::move(v));
        return success();
      })
      .Case<memref::LoadOp>([&](memref::LoadOp load) {
        return readShared(op, load.getMemRef(), load.getIndices(),
                          load.getResult().getType(), load.getResult());
      })
      .Case<memref::StoreOp>([&](memref::StoreOp store) {
        return writeShared(op, store.getMemRef(), store.getIndices(),
                           store.getValue());
      })
      .Case<vector::LoadOp>([&](vector::LoadOp load) {
        return readShared(op, load.getBase(), load.getIndices(),
                          load.getResult().getType(), load.getResult());
      })
      .Case<vector::StoreOp>([&](vector::StoreOp store) {
        return writeShared(op, store.getBase(), store.getIndices(),
                           store.getValueToStore());
      })
      .Case<vector::ExtractOp>([&](vector::ExtractOp e) -> LogicalResult {
        ArrayRef<int64_t> position = e.getStaticPosition();
        if (position.size() != 1 || position[0] < 0 ||
            e.getSourceVectorType().getRank() != 1)
          return fail(op, "has a position it does not interpret");
        bind(e.getResult(), {get(e.getSource())[position[0]]});
        return success();
      })
      .Case<vector::FromElementsOp>([&](vector::FromElementsOp f) {
        Lanes lanes;
        for (Value element : f.getElements())
          lanes.push_back(one(element));
        bind(f.getResult(), std::move(lanes));
        return success();
      })
      .Default([&](Operation *) { return stepDeviceOp(op); });
}

LogicalResult BlockRun::constant(Operation &op, Attribute value) {
  Type type = op.getResult(0).getType();
  Lanes lanes;
  auto scalarOf = [&](Attribute a) -> FailureOr<Scalar> {
    if (auto i = dyn_cast<IntegerAttr>(a))
      return Scalar::integer(i.getValue().getZExtValue(),
                             intWidth(scalarType(type)));
    if (auto f = dyn_cast<FloatAttr>(a))
      return Scalar::real(f.getValueAsDouble());
    return failure();
  };
  if (auto dense = dyn_cast<SplatElementsAttr>(value)) {
    FailureOr<Scalar> s = scalarOf(dense.getSplatValue<Attribute>());
    if (failed(s))
      return fail(op, "has a constant it cannot read");
    lanes.assign(laneCount(type), *s);
  } else {
    FailureOr<Scalar> s = scalarOf(value);
    if (failed(s))
      return fail(op, "has a constant it cannot read");
    lanes.push_back(*s);
  }
  bind(op.getResult(0), std::move(lanes));
  return success();
}

template <typename IdOp> LogicalResult BlockRun::index(IdOp id) {
  const int d = static_cast<int>(id.getDimension());
  int64_t v;
  if constexpr (std::is_same_v<IdOp, gpu::ThreadIdOp>)
    v = d == 0 ? thread : 0;
  else if constexpr (std::is_same_v<IdOp, gpu::BlockIdOp>)
    v = block[d];
  else if constexpr (std::is_same_v<IdOp, gpu::BlockDimOp>)
    v = d == 0 ? blockSize : 1;
  else
    v = grid[d];
  bind(id.getResult(), {Scalar::integer(v, 64)});
  return success();
}

FailureOr<uint8_t *> BlockRun::address(Operation &op, const Scalar &pointer,
                                       Type type, uint64_t alignment,
                                       Access access) {
  return address(op, pointer, byteSize(type), alignment, access);
}

FailureOr<uint8_t *> BlockRun::address(Operation &op, const Scalar &pointer,
                                       int64_t size, uint64_t alignment,
                                       Access access) {
  if (pointer.kind != Scalar::Pointer)
    return fail(op, "accesses memory through a value that is not a "
                    "pointer");
  const bool shared = pointer.buffer == kDynamicShared;
  std::vector<uint8_t> &memory =
      shared ? dynamicShared.bytes : buffers[pointer.buffer];
  if (pointer.offset < 0 ||
      pointer.offset + size > static_cast<int64_t>(memory.size()))
    return fail(op, "accesses bytes [" + Twine(pointer.offset) + ", " +
                        Twine(pointer.offset + size) + ") of buffer " +
                        Twine(pointer.buffer) + ", which holds " +
                        Twine(memory.size()));
  if (pointer.offset % alignment != 0)
    return fail(op, "accesses byte " + Twine(pointer.offset) + " of buffer " +
                        Twine(pointer.buffer) + ", not aligned to " +
                        Twine(alignment));
  if (shared &&
      failed(access == Access::Read
                 ? noteRead(op, dynamicShared, pointer.offset, size)
                 : noteWrite(op, dynamicShared, pointer.offset, size)))
    return failure();
  return memory.data() + pointer.offset;
}

} // namespace opfuse::reference::kernel

namespace opfuse::reference {

using kernel::BlockRun;
using kernel::byteSize;
using kernel::kApproximations;
using kernel::laneCount;
using kernel::Mask;
using kernel::Scalar;

std::optional<std::string> findUninterpretedOp(gpu::GPUFuncOp kernel) {
  std::optional<std::string> found;
  kernel.walk([&](Operation *op) {
    bool known =
        isa<gpu::GPUFuncOp, gpu::ReturnOp, gpu::BarrierOp, gpu::ShuffleOp,
            gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
            scf::IfOp, scf::ForOp, scf::YieldOp, arith::ConstantOp,
            LLVM::ConstantOp, LLVM::PoisonOp, LLVM::GEPOp, LLVM::LoadOp,
            LLVM::StoreOp, LLVM::ExtractElementOp, LLVM::InsertElementOp,
            memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
            vector::ExtractOp, vector::FromElementsOp, LLVM::AddressOfOp,
            LLVM::ExtractValueOp, LLVM::InsertValueOp, LLVM::BitcastOp,
            NVVM::ShflOp, NVVM::LdMatrixOp, NVVM::MmaOp, NVVM::CpAsyncOp,
            NVVM::CpAsyncCommitGroupOp, NVVM::CpAsyncWaitGroupOp,
            NVVM::MembarOp, LLVM::AtomicRMWOp>(op);
    // arith and math ops run lane by lane where evaluateLaneOp knows them.
    if (isa<arith::SelectOp>(op) || kernel::isLaneOp(*op))
      known = true;
    if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op)) {
      StringRef text = asmOp.getAsmString();
      known =
          (op->getNumResults() == 0 && text.starts_with("griddepcontrol")) ||
          (op->getNumResults() == 1 && op->getNumOperands() == 1 &&
           op->getResult(0).getType().isF32() &&
           llvm::any_of(kApproximations,
                        [&](StringRef f) { return text.starts_with(f); }));
    }
    // Values of other types (f64 vectors, i128, nested structs) would
    // decode wrongly; a struct of scalars is its fields as lanes.
    auto scalarOrVector = [](Type type) {
      return isa<LLVM::LLVMPointerType>(type) || type.isIntOrIndexOrFloat() ||
             (isa<VectorType>(type) && cast<VectorType>(type).getRank() == 1);
    };
    // An integer wider than 64 bits only between two bitcasts.
    auto wideBetweenBitcasts = [&](Type type) {
      auto integer = dyn_cast<IntegerType>(type);
      return integer && integer.getWidth() > 64 &&
             integer.getWidth() % 64 == 0 && isa<LLVM::BitcastOp>(op) &&
             llvm::all_of(op->getUsers(), [](Operation *user) {
               return isa<LLVM::BitcastOp>(user);
             });
    };
    if (known && !isa<gpu::GPUFuncOp>(op))
      for (Type type : op->getResultTypes()) {
        if (auto integer = dyn_cast<IntegerType>(type);
            integer && integer.getWidth() > 64) {
          known = known && wideBetweenBitcasts(type);
          continue;
        }
        auto structType = dyn_cast<LLVM::LLVMStructType>(type);
        if (structType ? !llvm::all_of(structType.getBody(),
                                       [](Type field) {
                                         return field.isIntOrIndexOrFloat();
                                       })
                       : !scalarOrVector(type))
          known = false;
      }
    if (known)
      return WalkResult::advance();
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "'" << op->getName() << "' at " << op->getLoc();
    found = text;
    return WalkResult::interrupt();
  });
  return found;
}

std::string interpretKernel(gpu::GPUFuncOp kernel, ArrayRef<int64_t> grid,
                            int64_t block,
                            std::vector<std::vector<uint8_t>> &buffers,
                            int64_t sharedBytes) {
  Block &entry = kernel.getBody().front();
  if (kernel.getNumArguments() != buffers.size())
    return "the kernel takes " + std::to_string(kernel.getNumArguments()) +
           " pointers but " + std::to_string(buffers.size()) +
           " buffers were given";
  if (grid.empty() || grid.size() > 3)
    return "a grid has one to three dimensions";
  if (kernel.getNumPrivateAttributions() != 0)
    return "private attributions are not interpreted";
  if (std::optional<std::string> op = findUninterpretedOp(kernel))
    return *op + " is not interpreted";
  std::array<int64_t, 3> dims = {1, 1, 1};
  llvm::copy(grid, dims.begin());
  // Blocks share nothing but global memory, where each writes its own
  // elements (a kernel whose blocks write the same element is wrong
  // whichever order they run in), so they run on the host's cores. The
  // first failing block in launch order is reported. Blocks that talk
  // through atomics (a split-K GEMM's counters: the last of a tile's
  // blocks sums the others' partial tiles) run one after another, in
  // launch order, each seeing all the writes before it.
  const bool talk =
      kernel.walk([](LLVM::AtomicRMWOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  const int64_t blocks = dims[0] * dims[1] * dims[2];
  constexpr int64_t kChunk = 1024;
  std::vector<std::string> errors;
  for (int64_t first = 0; first < blocks; first += kChunk) {
    const int64_t count = std::min(kChunk, blocks - first);
    errors.assign(count, "");
    auto runBlock = [&](size_t k) {
      const int64_t b = first + static_cast<int64_t>(k);
      BlockRun run(
          buffers,
          {b % dims[0], b / dims[0] % dims[1], b / (dims[0] * dims[1])}, block,
          dims, sharedBytes);
      for (auto [i, argument] : llvm::enumerate(
               entry.getArguments().take_front(kernel.getNumArguments()))) {
        Scalar p;
        p.kind = Scalar::Pointer;
        p.buffer = i;
        run.bindAll(argument, {p});
      }
      for (BlockArgument attribution : kernel.getWorkgroupAttributions())
        run.addShared(attribution);
      if (failed(run.run(entry, Mask(block, 1))))
        errors[k] = run.error;
    };
    if (talk) {
      for (int64_t k = 0; k < count; ++k)
        runBlock(k);
    } else {
      llvm::parallelFor(0, count, runBlock);
    }
    for (const std::string &error : errors)
      if (!error.empty())
        return error;
  }
  return "";
}

} // namespace opfuse::reference
