//===- KernelWarpRun.cpp - Warp matrix ops and async copies of a block ----===//
//
// The members of BlockRun that gather a warp's lanes for ldmatrix and
// mma.sync (whose fragment layouts are KernelWarpOps.cpp's), shfl.sync,
// the cp.async groups, and one thread's LLVM struct, bitcast and address
// ops, atomics and fences (stepDeviceOp, where stepThread hands them).
//
//===----------------------------------------------------------------------===//

#include "KernelBlockRun.h"
#include "KernelWarpOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cstring>

using namespace mlir;

namespace opfuse::reference::kernel {

LogicalResult BlockRun::forEachWarp(Operation &op, const Mask &mask,
                                    function_ref<LogicalResult(int64_t)> fn) {
  if (blockSize % kernel::kWarpSize != 0)
    return fail(op, "runs in a block of " + Twine(blockSize) +
                        " threads, not whole warps");
  for (int64_t first = 0; first < blockSize; first += kernel::kWarpSize) {
    int64_t active = 0;
    for (int64_t lane = 0; lane < kernel::kWarpSize; ++lane)
      active += mask[first + lane] != 0;
    if (active == 0)
      continue;
    if (active != kernel::kWarpSize) {
      thread = first;
      return fail(op, "is reached by " + Twine(active) +
                          " threads of a warp, not all 32");
    }
    if (failed(fn(first)))
      return failure();
  }
  thread = 0;
  return success();
}

LogicalResult BlockRun::shfl(NVVM::ShflOp s, const Mask &mask) {
  PerThread result(blockSize);
  if (failed(forEach(mask, [&]() -> LogicalResult {
        const int64_t lane = thread % kernel::kWarpSize;
        const uint64_t b = one(s.getOffset()).bits & 31;
        const uint64_t c = one(s.getMaskAndClamp()).bits;
        const uint64_t members = one(s.getThreadMask()).bits;
        const int64_t segmask = (c >> 8) & 31, clamp = c & 31;
        const int64_t maxLane = (lane & segmask) | (clamp & ~segmask);
        const int64_t minLane = lane & segmask;
        int64_t j = lane;
        bool valid = false;
        switch (s.getKind()) {
        case NVVM::ShflKind::up:
          j = lane - b;
          valid = j >= maxLane;
          break;
        case NVVM::ShflKind::down:
          j = lane + b;
          valid = j <= maxLane;
          break;
        case NVVM::ShflKind::bfly:
          j = lane ^ b;
          valid = j <= maxLane;
          break;
        case NVVM::ShflKind::idx:
          j = minLane | (b & ~segmask);
          valid = j <= maxLane;
          break;
        }
        if (!valid)
          j = lane;
        const int64_t from = thread - lane + j;
        if (from >= blockSize || !mask[from] || !((members >> j) & 1))
          return fail(*s, "reads lane " + Twine(j) +
                              ", which is not active or not in its mask");
        Lanes out = env[s.getVal()][from];
        if (s.getReturnValueAndIsValid())
          out.push_back(Scalar::integer(valid, 1));
        result[thread] = std::move(out);
        return success();
      })))
    return failure();
  for (int64_t t = 0; t < blockSize; ++t)
    if (mask[t]) {
      thread = t;
      bind(s.getRes(), result[t]);
    }
  thread = 0;
  return success();
}

LogicalResult BlockRun::ldmatrix(NVVM::LdMatrixOp ld, const Mask &mask) {
  Operation &op = *ld;
  const int num = ld.getNum();
  if (ld.getShape().getM() != 8 || ld.getShape().getN() != 8 ||
      ld.getEltType() != NVVM::LdStMatrixEltType::B16 ||
      !llvm::is_contained({1, 2, 4}, num))
    return fail(op, "has a shape or element type it does not interpret");
  const bool transpose = ld.getLayout() == NVVM::MMALayout::col;
  return forEachWarp(op, mask, [&](int64_t first) -> LogicalResult {
    kernel::LdMatrixRows rows{};
    for (int64_t lane = 0; lane < 8 * num; ++lane) {
      thread = first + lane;
      FailureOr<uint8_t *> at =
          address(op, one(ld.getPtr()), 16, 16, Access::Read);
      if (failed(at))
        return failure();
      std::memcpy(rows[lane].data(), *at, 16);
    }
    kernel::LdMatrixRegisters registers =
        kernel::ldmatrix(rows, num, transpose);
    for (int64_t lane = 0; lane < kernel::kWarpSize; ++lane) {
      thread = first + lane;
      Lanes out;
      for (int i = 0; i < num; ++i)
        out.push_back(Scalar::integer(registers[lane][i], 32));
      bind(ld.getRes(), std::move(out));
    }
    return success();
  });
}

FailureOr<std::array<double, 2>> BlockRun::halves(Operation &op, Value value,
                                                  Type element) {
  const Lanes &lanes = get(value);
  if (lanes.size() == 2 && lanes[0].kind == Scalar::Float &&
      lanes[1].kind == Scalar::Float)
    return std::array<double, 2>{lanes[0].value, lanes[1].value};
  if (lanes.size() != 1 || lanes[0].kind != Scalar::Int || lanes[0].width != 32)
    return fail(op, "has an operand that is not two 16-bit floats");
  std::array<double, 2> out;
  for (int h = 0; h < 2; ++h) {
    const uint16_t bits = (lanes[0].bits >> (16 * h)) & 0xffff;
    uint8_t bytes[2];
    std::memcpy(bytes, &bits, 2);
    out[h] = decode(element, bytes).value;
  }
  return out;
}

LogicalResult BlockRun::mma(NVVM::MmaOp m, const Mask &mask) {
  Operation &op = *m;
  Builder b(op.getContext());
  std::optional<NVVM::MMATypes> type = m.getMultiplicandAPtxType();
  Type element = !type                           ? Type()
                 : *type == NVVM::MMATypes::bf16 ? b.getBF16Type()
                 : *type == NVVM::MMATypes::f16  ? b.getF16Type()
                                                 : Type();
  if (!element || m.getShapeAttr().getM() != 16 ||
      m.getShapeAttr().getN() != 8 || m.getShapeAttr().getK() != 16 ||
      m.getLayoutA() != NVVM::MMALayout::row ||
      m.getLayoutB() != NVVM::MMALayout::col || m.getOperandA().size() != 4 ||
      m.getOperandB().size() != 2 || m.getOperandC().size() != 4 ||
      !m.getOperandC().front().getType().isF32())
    return fail(op, "is not the m16n8k16 row.col bf16/f16 MMA with f32 "
                    "accumulators the interpreter runs");
  return forEachWarp(op, mask, [&](int64_t first) -> LogicalResult {
    kernel::MmaA a{};
    kernel::MmaB bFragment{};
    kernel::MmaC c{};
    // Each 32-bit register of a fragment holds two 16-bit elements.
    auto unpack = [&](ValueRange registers, double *elements) {
      for (auto [r, reg] : llvm::enumerate(registers)) {
        FailureOr<std::array<double, 2>> h = halves(op, reg, element);
        if (failed(h))
          return failure();
        elements[2 * r] = (*h)[0];
        elements[2 * r + 1] = (*h)[1];
      }
      return success();
    };
    for (int64_t lane = 0; lane < kernel::kWarpSize; ++lane) {
      thread = first + lane;
      if (failed(unpack(m.getOperandA(), a[lane].data())) ||
          failed(unpack(m.getOperandB(), bFragment[lane].data())))
        return failure();
      for (int r = 0; r < 4; ++r) {
        const Scalar &s = one(m.getOperandC()[r]);
        if (s.kind != Scalar::Float)
          return fail(op, "accumulates into a value that is not a float");
        c[lane][r] = s.value;
      }
    }
    kernel::MmaC d = kernel::mmaM16N8K16(a, bFragment, c);
    for (int64_t lane = 0; lane < kernel::kWarpSize; ++lane) {
      thread = first + lane;
      Lanes out;
      for (int r = 0; r < 4; ++r)
        out.push_back(Scalar::real(d[lane][r]));
      bind(m.getRes(), std::move(out));
    }
    return success();
  });
}

LogicalResult BlockRun::completeAsyncGroup(Operation &op) {
  for (const AsyncCopy &copy : asyncCommitted[thread].front()) {
    FailureOr<uint8_t *> dst =
        address(op, copy.dst, copy.size, copy.size, Access::Write);
    if (failed(dst))
      return failure();
    std::memset(*dst, 0, copy.size);
    if (copy.srcSize > 0) {
      FailureOr<uint8_t *> src =
          address(op, copy.src, copy.srcSize, 1, Access::Read);
      if (failed(src))
        return failure();
      std::memcpy(*dst, *src, copy.srcSize);
    }
  }
  asyncCommitted[thread].pop_front();
  return success();
}

bool BlockRun::isWide(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.getWidth() > 64;
}

std::vector<uint8_t> BlockRun::bytesOf(Type type, const Lanes &lanes) {
  Type element =
      isWide(type) ? IntegerType::get(type.getContext(), 64) : scalarType(type);
  const int64_t width = byteSize(element);
  std::vector<uint8_t> bytes(width * lanes.size());
  for (auto [i, lane] : llvm::enumerate(lanes))
    encode(element, lane, bytes.data() + i * width);
  return bytes;
}

Lanes BlockRun::lanesOf(Type type, ArrayRef<uint8_t> bytes) {
  Type element =
      isWide(type) ? IntegerType::get(type.getContext(), 64) : scalarType(type);
  const int64_t width = byteSize(element);
  Lanes lanes;
  for (size_t at = 0; at + width <= bytes.size(); at += width)
    lanes.push_back(decode(element, bytes.data() + at));
  return lanes;
}

/// The LLVM struct, bitcast and address ops and the NVVM ops of
/// asynchronous copies, atomics and fences, for one thread.
LogicalResult BlockRun::stepDeviceOp(Operation &op) {
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<LLVM::AddressOfOp>([&](LLVM::AddressOfOp a) {
        auto global = dyn_cast_or_null<LLVM::GlobalOp>(
            SymbolTable::lookupNearestSymbolFrom(&op, a.getGlobalNameAttr()));
        if (!global || global.getAddrSpace() != 3 || global.getValueOrNull())
          return fail(op, "takes the address of a global other than the "
                          "dynamic shared memory");
        Scalar p;
        p.kind = Scalar::Pointer;
        p.buffer = kDynamicShared;
        bind(a.getResult(), {p});
        return success();
      })
      .Case<LLVM::ExtractValueOp>([&](LLVM::ExtractValueOp e) {
        ArrayRef<int64_t> position = e.getPosition();
        const Lanes &v = get(e.getContainer());
        if (position.size() != 1 || position[0] >= int64_t(v.size()))
          return fail(op, "has a position it does not interpret");
        bind(e.getResult(), {v[position[0]]});
        return success();
      })
      .Case<LLVM::InsertValueOp>([&](LLVM::InsertValueOp e) {
        ArrayRef<int64_t> position = e.getPosition();
        Lanes v = get(e.getContainer());
        if (position.size() != 1 || position[0] >= int64_t(v.size()))
          return fail(op, "has a position it does not interpret");
        v[position[0]] = one(e.getValue());
        bind(e.getResult(), std::move(v));
        return success();
      })
      .Case<LLVM::BitcastOp>([&](LLVM::BitcastOp c) {
        Type from = c.getArg().getType(), to = c.getResult().getType();
        if (isa<LLVM::LLVMPointerType>(from)) {
          bind(c.getResult(), get(c.getArg()));
          return success();
        }
        for (const Scalar &lane : get(c.getArg()))
          if (lane.kind == Scalar::Poison)
            return fail(op, "reinterprets poison");
        std::vector<uint8_t> bytes = bytesOf(from, get(c.getArg()));
        const int64_t size = isWide(to)
                                 ? cast<IntegerType>(to).getWidth() / 8
                                 : byteSize(scalarType(to)) * laneCount(to);
        if (size == 0 || int64_t(bytes.size()) != size)
          return fail(op, "changes the size of its value");
        bind(c.getResult(), lanesOf(to, bytes));
        return success();
      })
      .Case<NVVM::CpAsyncOp>([&](NVVM::CpAsyncOp copy) {
        AsyncCopy pending;
        pending.dst = one(copy.getDst());
        pending.src = one(copy.getSrc());
        pending.size = copy.getSize();
        pending.srcSize = copy.getCpSize() ? int64_t(one(copy.getCpSize()).bits)
                                           : pending.size;
        if (pending.dst.buffer != kDynamicShared ||
            pending.srcSize > pending.size)
          return fail(op, "copies to memory other than the dynamic shared "
                          "memory, or more bytes than it stores");
        asyncOpen[thread].push_back(pending);
        return success();
      })
      .Case<NVVM::MembarOp>([&](auto) {
        // Blocks that talk through memory run one after another on the
        // host (interpretKernel), so every access is already visible.
        return success();
      })
      .Case<LLVM::AtomicRMWOp>([&](LLVM::AtomicRMWOp rmw) {
        Type type = rmw.getVal().getType();
        const Scalar &pointer = one(rmw.getPtr());
        if (pointer.buffer == kDynamicShared ||
            rmw.getBinOp() != LLVM::AtomicBinOp::add || !isa<IntegerType>(type))
          return fail(op, "is an atomic the interpreter does not run "
                          "(only an integer add to global memory)");
        FailureOr<uint8_t *> at =
            address(op, pointer, type, byteSize(type), Access::Write);
        if (failed(at))
          return failure();
        Scalar old = decode(type, *at);
        encode(
            type,
            Scalar::integer(old.bits + one(rmw.getVal()).bits, intWidth(type)),
            *at);
        bind(rmw.getRes(), {old});
        return success();
      })
      .Case<NVVM::CpAsyncCommitGroupOp>([&](auto) {
        asyncCommitted[thread].push_back(std::move(asyncOpen[thread]));
        asyncOpen[thread].clear();
        return success();
      })
      .Case<NVVM::CpAsyncWaitGroupOp>([&](NVVM::CpAsyncWaitGroupOp wait) {
        while (asyncCommitted[thread].size() > wait.getN())
          if (failed(completeAsyncGroup(op)))
            return failure();
        return success();
      })
      .Default([&](Operation *) { return fail(op, "is not interpreted"); });
}

} // namespace opfuse::reference::kernel
