//===- KernelInterpreter.cpp - Run emitted loop kernels on the host -------===//
//
// Values are kept per thread as lanes of scalars: integers with their bit
// width, floats as the exact double of their type's value (every f16, bf16
// and f32 is one), pointers as a buffer and a byte offset. f32 arithmetic
// runs in float, so each op rounds as the GPU's does; fma is fused.
//
//===----------------------------------------------------------------------===//

#include "KernelInterpreter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;

namespace opfuse::test {
namespace {

struct Scalar {
  enum Kind : uint8_t { Poison, Int, Float, Pointer } kind = Poison;
  unsigned width = 0; // Int: bits
  uint64_t bits = 0;  // Int: the value, zero-extended
  double value = 0;   // Float: exact
  int buffer = -1;    // Pointer
  int64_t offset = 0; // Pointer: bytes

  static Scalar integer(uint64_t bits, unsigned width) {
    Scalar s;
    s.kind = Int;
    s.width = width;
    s.bits = width >= 64 ? bits : bits & ((uint64_t(1) << width) - 1);
    return s;
  }
  static Scalar real(double value) {
    Scalar s;
    s.kind = Float;
    s.value = value;
    return s;
  }
  int64_t signedValue() const {
    if (width >= 64)
      return static_cast<int64_t>(bits);
    const uint64_t sign = uint64_t(1) << (width - 1);
    return static_cast<int64_t>((bits ^ sign) - sign);
  }
};

using Lanes = SmallVector<Scalar, 1>;

unsigned intWidth(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    type = vector.getElementType();
  if (type.isIndex())
    return 64;
  return cast<IntegerType>(type).getWidth();
}

Type scalarType(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getElementType();
  return type;
}

int64_t laneCount(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}

const llvm::fltSemantics *semanticsOf(Type type) {
  if (type.isF32())
    return &llvm::APFloat::IEEEsingle();
  if (type.isF16())
    return &llvm::APFloat::IEEEhalf();
  if (type.isBF16())
    return &llvm::APFloat::BFloat();
  if (type.isF64())
    return &llvm::APFloat::IEEEdouble();
  return nullptr;
}

/// `value` rounded to nearest even in `type`.
double roundTo(Type type, double value) {
  if (type.isF64())
    return value;
  if (type.isF32())
    return static_cast<float>(value);
  llvm::APFloat f(value);
  bool lost;
  f.convert(*semanticsOf(type), llvm::APFloat::rmNearestTiesToEven, &lost);
  return f.convertToDouble();
}

int64_t byteSize(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements() * byteSize(vector.getElementType());
  if (auto integer = dyn_cast<IntegerType>(type))
    return (integer.getWidth() + 7) / 8;
  if (auto real = dyn_cast<FloatType>(type))
    return real.getWidth() / 8;
  return 0;
}

class ThreadRun {
public:
  ThreadRun(std::vector<std::vector<uint8_t>> &buffers, int64_t thread,
            int64_t block, int64_t blockSize, int64_t grid)
      : buffers(buffers), thread(thread), block(block), blockSize(blockSize),
        grid(grid) {}

  /// Runs `body`'s ops; an scf.yield's operands go to `yielded`.
  LogicalResult run(Block &body, SmallVectorImpl<Lanes> *yielded = nullptr) {
    for (Operation &op : body) {
      if (isa<scf::YieldOp>(op)) {
        if (yielded)
          for (Value v : op.getOperands())
            yielded->push_back(env.lookup(v));
        return success();
      }
      if (isa<gpu::ReturnOp>(op))
        return success();
      if (failed(step(op)))
        return failure();
    }
    return success();
  }

  void bind(Value value, Lanes lanes) { env[value] = std::move(lanes); }

  std::string error;

private:
  LogicalResult fail(Operation &op, const Twine &why) {
    llvm::raw_string_ostream os(error);
    os << "thread " << thread << " of block " << block << ": '" << op.getName()
       << "' " << why;
    return failure();
  }

  const Lanes &get(Value v) { return env[v]; }
  const Scalar &one(Value v) { return env[v].front(); }

  LogicalResult step(Operation &op) {
    // Elementwise integer and float ops, lane by lane.
    if (op.getNumResults() == 1 && op.getNumOperands() >= 1 &&
        (op.getName().getDialectNamespace() == "arith" ||
         op.getName().getDialectNamespace() == "math") &&
        !isa<arith::ConstantOp, arith::SelectOp>(op)) {
      Lanes out;
      const int64_t n = laneCount(op.getResult(0).getType());
      for (int64_t lane = 0; lane < n; ++lane) {
        SmallVector<Scalar, 3> in;
        for (Value operand : op.getOperands()) {
          const Lanes &l = get(operand);
          if (l.empty())
            return fail(op, "reads a value it never computed");
          in.push_back(l.size() == 1 ? l.front() : l[lane]);
        }
        for (const Scalar &s : in)
          if (s.kind == Scalar::Poison)
            return fail(op, "computes on poison");
        FailureOr<Scalar> r = elementwise(op, in);
        if (failed(r))
          return failure();
        out.push_back(*r);
      }
      bind(op.getResult(0), std::move(out));
      return success();
    }
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
          bind(s.getResult(),
               get(c.bits ? s.getTrueValue() : s.getFalseValue()));
          return success();
        })
        .Case<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp>(
            [&](auto id) { return index(id); })
        .Case<gpu::BarrierOp>([](auto) { return success(); })
        .Case<LLVM::InlineAsmOp>([&](LLVM::InlineAsmOp asmOp) {
          // Grid-dependency control orders kernels, not threads.
          if (op.getNumResults() == 0 &&
              asmOp.getAsmString().starts_with("griddepcontrol"))
            return success();
          return fail(op, "'" + asmOp.getAsmString() + "' is not interpreted");
        })
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
          FailureOr<uint8_t *> at = address(op, one(load.getAddr()), type,
                                            load.getAlignment().value_or(1));
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
          FailureOr<uint8_t *> at = address(op, one(store.getAddr()), type,
                                            store.getAlignment().value_or(1));
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
            return fail(op,
                        "reads lane " + Twine(i) + " of " + Twine(v.size()));
          bind(e.getResult(), {v[i]});
          return success();
        })
        .Case<LLVM::InsertElementOp>([&](LLVM::InsertElementOp e) {
          const int64_t i = one(e.getPosition()).bits;
          Lanes v = get(e.getVector());
          if (i >= static_cast<int64_t>(v.size()))
            return fail(op,
                        "writes lane " + Twine(i) + " of " + Twine(v.size()));
          v[i] = one(e.getValue());
          bind(e.getResult(), std::move(v));
          return success();
        })
        .Case<scf::IfOp>([&](scf::IfOp s) -> LogicalResult {
          const Scalar &c = one(s.getCondition());
          if (c.kind != Scalar::Int)
            return fail(op, "branches on poison");
          Region &region = c.bits ? s.getThenRegion() : s.getElseRegion();
          SmallVector<Lanes> results;
          if (!region.empty() && failed(run(region.front(), &results)))
            return failure();
          for (auto [result, lanes] : llvm::zip(s.getResults(), results))
            bind(result, lanes);
          return success();
        })
        .Case<scf::ForOp>([&](scf::ForOp f) -> LogicalResult {
          const bool isUnsigned = f.getUnsignedCmp();
          auto value = [&](Value v) {
            const Scalar &s = one(v);
            return isUnsigned ? static_cast<int64_t>(s.bits) : s.signedValue();
          };
          const int64_t lower = value(f.getLowerBound()),
                        upper = value(f.getUpperBound()),
                        stepBy = value(f.getStep());
          const unsigned width = intWidth(f.getInductionVar().getType());
          SmallVector<Lanes> carried;
          for (Value init : f.getInitArgs())
            carried.push_back(get(init));
          for (int64_t i = lower; i < upper; i += stepBy) {
            bind(f.getInductionVar(), {Scalar::integer(i, width)});
            for (auto [arg, lanes] : llvm::zip(f.getRegionIterArgs(), carried))
              bind(arg, lanes);
            SmallVector<Lanes> next;
            if (failed(run(*f.getBody(), &next)))
              return failure();
            carried = std::move(next);
          }
          for (auto [result, lanes] : llvm::zip(f.getResults(), carried))
            bind(result, lanes);
          return success();
        })
        .Default([&](Operation *) { return fail(op, "is not interpreted"); });
  }

  LogicalResult constant(Operation &op, Attribute value) {
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

  template <typename IdOp> LogicalResult index(IdOp id) {
    int64_t v = 0;
    if (id.getDimension() == gpu::Dimension::x) {
      if constexpr (std::is_same_v<IdOp, gpu::ThreadIdOp>)
        v = thread;
      else if constexpr (std::is_same_v<IdOp, gpu::BlockIdOp>)
        v = block;
      else if constexpr (std::is_same_v<IdOp, gpu::BlockDimOp>)
        v = blockSize;
      else
        v = grid;
    } else if (!std::is_same_v<IdOp, gpu::ThreadIdOp> &&
               !std::is_same_v<IdOp, gpu::BlockIdOp>) {
      v = 1;
    }
    bind(id.getResult(), {Scalar::integer(v, 64)});
    return success();
  }

  FailureOr<uint8_t *> address(Operation &op, const Scalar &pointer, Type type,
                               uint64_t alignment) {
    if (pointer.kind != Scalar::Pointer)
      return fail(op, "accesses memory through a value that is not a "
                      "global pointer");
    std::vector<uint8_t> &memory = buffers[pointer.buffer];
    const int64_t size = byteSize(type);
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
    return memory.data() + pointer.offset;
  }

  static Scalar decode(Type type, const uint8_t *at) {
    uint64_t raw = 0;
    std::memcpy(&raw, at, byteSize(type));
    if (const llvm::fltSemantics *semantics = semanticsOf(type))
      return Scalar::real(
          llvm::APFloat(*semantics, llvm::APInt(byteSize(type) * 8, raw))
              .convertToDouble());
    return Scalar::integer(raw, intWidth(type));
  }

  static void encode(Type type, const Scalar &s, uint8_t *at) {
    uint64_t raw = s.bits;
    if (const llvm::fltSemantics *semantics = semanticsOf(type)) {
      llvm::APFloat f(s.value);
      bool lost;
      f.convert(*semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
      raw = f.bitcastToAPInt().getZExtValue();
    }
    std::memcpy(at, &raw, byteSize(type));
  }

  FailureOr<Scalar> elementwise(Operation &op, ArrayRef<Scalar> in) {
    Type type = scalarType(op.getResult(0).getType());
    auto real = [&](double v) { return Scalar::real(roundTo(type, v)); };
    // Binary f32 ops round once, as the GPU's do.
    auto f32 = [&](auto fn) {
      return Scalar::real(static_cast<float>(fn(
          static_cast<float>(in[0].value), static_cast<float>(in[1].value))));
    };
    const unsigned width = type.isIntOrIndex() ? intWidth(type) : 0;
    auto integer = [&](uint64_t v) { return Scalar::integer(v, width); };
    const uint64_t a = in[0].bits, b = in.size() > 1 ? in[1].bits : 0;
    return TypeSwitch<Operation *, FailureOr<Scalar>>(&op)
        .Case<arith::AddIOp>([&](auto) { return integer(a + b); })
        .Case<arith::SubIOp>([&](auto) { return integer(a - b); })
        .Case<arith::MulIOp>([&](auto) { return integer(a * b); })
        .Case<arith::AndIOp>([&](auto) { return integer(a & b); })
        .Case<arith::OrIOp>([&](auto) { return integer(a | b); })
        .Case<arith::XOrIOp>([&](auto) { return integer(a ^ b); })
        .Case<arith::ShLIOp>([&](auto) { return integer(a << b); })
        .Case<arith::ShRUIOp>([&](auto) { return integer(a >> b); })
        .Case<arith::MinUIOp>([&](auto) { return integer(std::min(a, b)); })
        .Case<arith::MaxUIOp>([&](auto) { return integer(std::max(a, b)); })
        .Case<arith::DivUIOp, arith::RemUIOp>(
            [&](Operation *o) -> FailureOr<Scalar> {
              if (b == 0)
                return fail(op, "divides by zero");
              return integer(isa<arith::DivUIOp>(o) ? a / b : a % b);
            })
        .Case<arith::ExtUIOp, arith::IndexCastUIOp, arith::TruncIOp>(
            [&](auto) { return integer(a); })
        .Case<arith::ExtSIOp, arith::IndexCastOp>(
            [&](auto) { return integer(in[0].signedValue()); })
        .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
          const int64_t sa = in[0].signedValue(), sb = in[1].signedValue();
          bool r = false;
          switch (c.getPredicate()) {
          case arith::CmpIPredicate::eq:
            r = a == b;
            break;
          case arith::CmpIPredicate::ne:
            r = a != b;
            break;
          case arith::CmpIPredicate::ult:
            r = a < b;
            break;
          case arith::CmpIPredicate::ule:
            r = a <= b;
            break;
          case arith::CmpIPredicate::ugt:
            r = a > b;
            break;
          case arith::CmpIPredicate::uge:
            r = a >= b;
            break;
          case arith::CmpIPredicate::slt:
            r = sa < sb;
            break;
          case arith::CmpIPredicate::sle:
            r = sa <= sb;
            break;
          case arith::CmpIPredicate::sgt:
            r = sa > sb;
            break;
          case arith::CmpIPredicate::sge:
            r = sa >= sb;
            break;
          }
          return Scalar::integer(r, 1);
        })
        .Case<arith::CmpFOp>([&](arith::CmpFOp c) -> FailureOr<Scalar> {
          const double x = in[0].value, y = in[1].value;
          const bool unordered = std::isnan(x) || std::isnan(y);
          bool r;
          switch (c.getPredicate()) {
          case arith::CmpFPredicate::OEQ:
            r = !unordered && x == y;
            break;
          case arith::CmpFPredicate::OGT:
            r = !unordered && x > y;
            break;
          case arith::CmpFPredicate::OGE:
            r = !unordered && x >= y;
            break;
          case arith::CmpFPredicate::OLT:
            r = !unordered && x < y;
            break;
          case arith::CmpFPredicate::OLE:
            r = !unordered && x <= y;
            break;
          case arith::CmpFPredicate::ONE:
            r = !unordered && x != y;
            break;
          case arith::CmpFPredicate::ORD:
            r = !unordered;
            break;
          case arith::CmpFPredicate::UNO:
            r = unordered;
            break;
          case arith::CmpFPredicate::UNE:
            r = unordered || x != y;
            break;
          case arith::CmpFPredicate::ULT:
            r = unordered || x < y;
            break;
          case arith::CmpFPredicate::UGT:
            r = unordered || x > y;
            break;
          default:
            return fail(op, "has a predicate it does not interpret");
          }
          return Scalar::integer(r, 1);
        })
        .Case<arith::AddFOp>([&](auto) {
          return type.isF32() ? f32(std::plus<float>())
                              : real(in[0].value + in[1].value);
        })
        .Case<arith::SubFOp>([&](auto) {
          return type.isF32() ? f32(std::minus<float>())
                              : real(in[0].value - in[1].value);
        })
        .Case<arith::MulFOp>([&](auto) {
          return type.isF32() ? f32(std::multiplies<float>())
                              : real(in[0].value * in[1].value);
        })
        .Case<arith::DivFOp>([&](auto) {
          return type.isF32() ? f32(std::divides<float>())
                              : real(in[0].value / in[1].value);
        })
        .Case<arith::NegFOp>([&](auto) { return real(-in[0].value); })
        .Case<math::AbsFOp>([&](auto) { return real(std::fabs(in[0].value)); })
        .Case<math::FmaOp>([&](auto) {
          if (type.isF32())
            return Scalar::real(std::fma(static_cast<float>(in[0].value),
                                         static_cast<float>(in[1].value),
                                         static_cast<float>(in[2].value)));
          return real(std::fma(in[0].value, in[1].value, in[2].value));
        })
        .Case<arith::MaxNumFOp>(
            [&](auto) { return real(std::fmax(in[0].value, in[1].value)); })
        .Case<arith::MinNumFOp>(
            [&](auto) { return real(std::fmin(in[0].value, in[1].value)); })
        .Case<arith::MaximumFOp>([&](auto) {
          return real(std::isnan(in[0].value) || std::isnan(in[1].value)
                          ? NAN
                          : std::fmax(in[0].value, in[1].value));
        })
        .Case<arith::MinimumFOp>([&](auto) {
          return real(std::isnan(in[0].value) || std::isnan(in[1].value)
                          ? NAN
                          : std::fmin(in[0].value, in[1].value));
        })
        .Case<arith::ExtFOp>([&](auto) { return real(in[0].value); })
        .Case<arith::TruncFOp>([&](auto) { return real(in[0].value); })
        .Case<arith::UIToFPOp>(
            [&](auto) { return real(static_cast<double>(a)); })
        .Case<arith::SIToFPOp>([&](auto) {
          return real(static_cast<double>(in[0].signedValue()));
        })
        .Default([&](Operation *) -> FailureOr<Scalar> {
          return fail(op, "is not interpreted");
        });
  }

  std::vector<std::vector<uint8_t>> &buffers;
  const int64_t thread, block, blockSize, grid;
  llvm::DenseMap<Value, Lanes> env;
};

} // namespace

std::string interpretKernel(gpu::GPUFuncOp kernel, int64_t grid, int64_t block,
                            std::vector<std::vector<uint8_t>> &buffers) {
  Block &entry = kernel.getBody().front();
  if (entry.getNumArguments() != buffers.size())
    return "the kernel takes " + std::to_string(entry.getNumArguments()) +
           " pointers but " + std::to_string(buffers.size()) +
           " buffers were given";
  for (int64_t b = 0; b < grid; ++b)
    for (int64_t t = 0; t < block; ++t) {
      ThreadRun thread(buffers, t, b, block, grid);
      for (auto [i, argument] : llvm::enumerate(entry.getArguments())) {
        Scalar p;
        p.kind = Scalar::Pointer;
        p.buffer = i;
        thread.bind(argument, {p});
      }
      if (failed(thread.run(entry)))
        return thread.error;
    }
  return "";
}

} // namespace opfuse::test
