//===- InitAll.cpp - Register opfuse and the upstream pieces it uses ------===//
//
// Single pass headers only: mlir/Conversion/Passes.h costs a minute per
// translation unit.
//
//===----------------------------------------------------------------------===//

#include "opfuse/InitAll.h"

#include "opfuse/Analysis/Passes.h"
#include "opfuse/Conversion/FuseToGPU/Passes.h"
#include "opfuse/Dialect/Fuse/IR/FuseDialect.h"
#include "opfuse/Dialect/Fuse/Transforms/Passes.h"
#include "opfuse/Pipeline/Pipeline.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

namespace mlir {
#define GEN_PASS_REGISTRATION_CONVERTGPUOPSTONVVMOPS
#define GEN_PASS_REGISTRATION_SCFTOCONTROLFLOWPASS
#define GEN_PASS_REGISTRATION_RECONCILEUNREALIZEDCASTSPASS
#include "mlir/Conversion/Passes.h.inc"
} // namespace mlir

void opfuse::registerAllDialects(mlir::DialectRegistry &registry) {
  using namespace mlir;
  registry.insert<fuse::FuseDialect, func::FuncDialect, arith::ArithDialect,
                  cf::ControlFlowDialect, gpu::GPUDialect, index::IndexDialect,
                  LLVM::LLVMDialect, NVVM::NVVMDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, ub::UBDialect,
                  vector::VectorDialect>();
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void opfuse::registerAllPasses() {
  registerFuseAnalysisPasses();
  fuse::registerFuseTransformsPasses();
  registerFuseToGPUPasses();
  registerFusePipeline();
  mlir::registerTransformsPasses();
  mlir::registerGPUPasses();
  mlir::math::registerMathPasses();
  mlir::registerConvertGpuOpsToNVVMOps();
  mlir::registerSCFToControlFlowPass();
  mlir::registerReconcileUnrealizedCastsPass();
}
