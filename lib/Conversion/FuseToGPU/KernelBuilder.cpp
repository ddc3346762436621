//===- KernelBuilder.cpp - Loads, stores and indices for emitters ---------===//
//
// Global memory is addressed through bare LLVM pointers (address space 1)
// with explicit alignment, so that 16-byte vectors become one ld/st.v4.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "ScalarOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace opfuse::fuse;

namespace opfuse {

Type getStorageType(Type type) {
  if (type.isInteger(1))
    return IntegerType::get(type.getContext(), 8);
  return type;
}

FailureOr<InputAccess> analyzeInput(GroupOp group, RankedTensorType input,
                                    ArrayRef<int64_t> space, unsigned index) {
  InputAccess access;
  const int64_t rank = space.size(), offset = rank - input.getRank();
  if (offset < 0)
    return group.emitError("input #") << index << " of rank " << input.getRank()
                                      << " exceeds the kernel's rank " << rank;
  access.strides.assign(rank, 0);
  int64_t stride = 1;
  for (int64_t d = rank - 1; d >= offset; --d) {
    int64_t dim = input.getDimSize(d - offset);
    if (dim != 1 && dim != space[d])
      return group.emitError("input #")
             << index << " dimension " << d - offset << " is " << dim
             << " but the kernel iterates over " << space[d]
             << "; inputs must broadcast to the output shape";
    if (dim != 1)
      access.strides[d] = stride;
    stride *= dim;
  }
  access.isScalar = getNumElements(input) == 1;
  access.innerContiguous = rank > 0 && access.strides[rank - 1] == 1;
  return access;
}

int64_t vectorLanes(GroupOp group) {
  int64_t widest = 1;
  for (Type type : llvm::concat<const Type>(group.getInputs().getTypes(),
                                            group.getResultTypes()))
    widest =
        std::max(widest, getElementByteSize(getStorageType(
                             cast<RankedTensorType>(type).getElementType())));
  return 16 / widest;
}

Type indexTypeFor(MLIRContext *context, int64_t elements) {
  return IntegerType::get(context, elements < (int64_t(1) << 31) ? 32 : 64);
}

Type indexTypeForBuffers(GroupOp group) {
  int64_t largest = 0;
  for (Type type : llvm::concat<const Type>(group.getInputs().getTypes(),
                                            group.getResultTypes()))
    largest = std::max(largest, getNumElements(type));
  return indexTypeFor(group.getContext(), largest);
}

Value dynamicSharedMemory(OpBuilder &b, Location loc, gpu::GPUModuleOp module) {
  constexpr const char *kDynamicShared = "opfuse_dynamic_shared";
  if (!module.lookupSymbol(kDynamicShared)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                           /*isConstant=*/false, LLVM::Linkage::External,
                           kDynamicShared, Attribute(), /*alignment=*/1024,
                           /*addrSpace=*/3);
  }
  return LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(b.getContext(), 3), kDynamicShared);
}

gpu::GPUFuncOp createKernel(OpBuilder &b, GroupOp group,
                            gpu::GPUModuleOp module, StringRef name,
                            int64_t threads, unsigned extraPointers) {
  auto pointerType =
      LLVM::LLVMPointerType::get(group.getContext(), /*addressSpace=*/1);
  SmallVector<Type> argTypes(group.getNumOperands() + group.getNumResults() +
                                 extraPointers,
                             pointerType);
  OpBuilder::InsertionGuard insertion(b);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = group.getLoc();
  auto func =
      gpu::GPUFuncOp::create(b, loc, name, b.getFunctionType(argTypes, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  func.setKnownBlockSizeAttr(
      b.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
  b.setInsertionPointToStart(&func.getBody().front());
  gpu::ReturnOp::create(b, loc);
  return func;
}

Value splatScalar(OpBuilder &b, ConstantOp constant) {
  auto splat = cast<DenseElementsAttr>(constant.getValue());
  Type elementType = splat.getElementType();
  Type computeType = getComputeType(elementType);
  TypedAttr value;
  if (isa<FloatType>(elementType))
    value = b.getFloatAttr(computeType,
                           splat.getSplatValue<APFloat>().convertToDouble());
  else
    value = b.getIntegerAttr(computeType,
                             splat.getSplatValue<APInt>().getSExtValue());
  return arith::ConstantOp::create(b, constant.getLoc(), value);
}

SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  return strides;
}

Value KernelBuilder::constant(int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(indexType, value));
}

Value KernelBuilder::threadId() {
  return arith::IndexCastUIOp::create(
      b, loc, indexType, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x));
}

Value KernelBuilder::blockId() {
  return arith::IndexCastUIOp::create(
      b, loc, indexType, gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
}

Value KernelBuilder::logicalBlock(int64_t blocks, int64_t grid) {
  Value block = blockId();
  if (grid >= blocks)
    return block;
  auto loop =
      scf::ForOp::create(b, loc, block, constant(blocks), constant(grid));
  // A block's threads finish with its shared memory (a transpose's tile,
  // a row kernel's partial sums) before the next logical block reuses it.
  b.setInsertionPoint(loop.getBody()->getTerminator());
  auto barrier = gpu::BarrierOp::create(b, loc);
  b.setInsertionPoint(barrier);
  return loop.getInductionVar();
}

Value KernelBuilder::firstVector(int64_t vectorsPerBlock, int64_t blocks,
                                 int64_t grid) {
  Value thread = threadId();
  Value block = logicalBlock(blocks, grid);
  return arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, constant(vectorsPerBlock)),
      thread);
}

Value KernelBuilder::i32(int64_t value) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(),
                                  b.getI32IntegerAttr(value));
}

Value KernelBuilder::pointerAt(Value base, Type elementType, Value index) {
  return LLVM::GEPOp::create(b, loc, base.getType(), elementType, base,
                             ValueRange{index});
}

SmallVector<Value> KernelBuilder::load(Value base, Type elementType,
                                       Value index, int64_t count) {
  Type storage = getStorageType(elementType);
  const int64_t bytes = getElementByteSize(storage);
  Value pointer = pointerAt(base, storage, index);
  SmallVector<Value> lanes;
  if (count == 1) {
    lanes.push_back(LLVM::LoadOp::create(b, loc, storage, pointer, bytes));
  } else {
    auto vectorType = VectorType::get({count}, storage);
    Value vector =
        LLVM::LoadOp::create(b, loc, vectorType, pointer, bytes * count);
    for (int64_t lane = 0; lane < count; ++lane)
      lanes.push_back(
          LLVM::ExtractElementOp::create(b, loc, vector, i32(lane)));
  }
  for (Value &lane : lanes)
    lane = toCompute(lane, elementType);
  return lanes;
}

void KernelBuilder::store(Value base, Type elementType, Value index,
                          ArrayRef<Value> lanes) {
  Type storage = getStorageType(elementType);
  const int64_t bytes = getElementByteSize(storage);
  Value pointer = pointerAt(base, storage, index);
  SmallVector<Value> stored;
  for (Value lane : lanes)
    stored.push_back(toStorage(lane, elementType));
  if (stored.size() == 1) {
    LLVM::StoreOp::create(b, loc, stored[0], pointer, bytes);
    return;
  }
  auto vectorType = VectorType::get({(int64_t)stored.size()}, storage);
  Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
  for (auto [lane, value] : llvm::enumerate(stored))
    vector = LLVM::InsertElementOp::create(b, loc, vector, value, i32(lane));
  LLVM::StoreOp::create(b, loc, vector, pointer, bytes * stored.size());
}

Value KernelBuilder::packLanes(ArrayRef<Value> lanes, Type elementType) {
  Type storage = getStorageType(elementType);
  auto vectorType = VectorType::get({(int64_t)lanes.size()}, storage);
  Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
  for (auto [index, lane] : llvm::enumerate(lanes))
    vector = LLVM::InsertElementOp::create(
        b, loc, vector, toStorage(lane, elementType), i32(index));
  const unsigned bits = getElementByteSize(storage) * 8 * lanes.size();
  return LLVM::BitcastOp::create(b, loc, b.getIntegerType(bits), vector);
}

void KernelBuilder::storePacked(Value base, Type elementType, Value index,
                                ArrayRef<Value> words) {
  Value pointer = pointerAt(base, getStorageType(elementType), index);
  Type word = words.front().getType();
  auto vectorType = VectorType::get({(int64_t)words.size()}, word);
  Value vector = LLVM::PoisonOp::create(b, loc, vectorType);
  for (auto [lane, value] : llvm::enumerate(words))
    vector = LLVM::InsertElementOp::create(b, loc, vector, value, i32(lane));
  LLVM::StoreOp::create(b, loc, vector, pointer,
                        word.getIntOrFloatBitWidth() / 8 * words.size());
}

SmallVector<Value> KernelBuilder::decompose(Value linear,
                                            ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  Value rest = linear;
  for (int64_t i = shape.size() - 1; i >= 0; --i) {
    indices[i] = i == 0
                     ? rest
                     : arith::RemUIOp::create(b, loc, rest, constant(shape[i]));
    if (i > 0)
      rest = arith::DivUIOp::create(b, loc, rest, constant(shape[i]));
  }
  return indices;
}

Value KernelBuilder::broadcastOffset(const InputAccess &access,
                                     ArrayRef<Value> indices) {
  Value offset = constant(0);
  if (access.isScalar)
    return offset;
  for (auto [d, stride] : llvm::enumerate(access.strides))
    if (stride != 0)
      offset = arith::AddIOp::create(
          b, loc, offset,
          arith::MulIOp::create(b, loc, indices[d], constant(stride)));
  return offset;
}

Value KernelBuilder::toCompute(Value value, Type elementType) {
  if (elementType.isInteger(1))
    return arith::TruncIOp::create(b, loc, elementType, value);
  if (isa<FloatType>(elementType) && !elementType.isF32())
    return arith::ExtFOp::create(b, loc, b.getF32Type(), value);
  return value;
}

Value KernelBuilder::toStorage(Value value, Type elementType) {
  if (elementType.isInteger(1))
    return arith::ExtUIOp::create(b, loc, getStorageType(elementType), value);
  if (isa<FloatType>(elementType) && !elementType.isF32())
    return arith::TruncFOp::create(b, loc, elementType, value);
  return value;
}

} // namespace opfuse
