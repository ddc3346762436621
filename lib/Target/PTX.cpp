//===- PTX.cpp - The PTX text of the compiled kernels ---------------------===//

#include "opfuse/Target/Artifact.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/Regex.h"

using namespace mlir;

namespace opfuse {

FailureOr<std::string> extractPtx(ModuleOp module) {
  std::string ptx;
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute attr : binary.getObjects())
      if (auto object = dyn_cast<gpu::ObjectAttr>(attr))
        ptx += object.getObject().getValue().str();
  if (ptx.empty())
    return module.emitError("the module holds no compiled kernels "
                            "(no gpu.binary with PTX)");
  // MLIR does not fail when libdevice is missing: the call stays extern and
  // ptxas fails much later. Catch it here, with the function named.
  llvm::Regex externCall("\\.extern \\.func[^\n]*(__nv_[A-Za-z0-9_]+)");
  SmallVector<StringRef> match;
  if (externCall.match(ptx, &match))
    return module.emitError("the PTX calls libdevice's ")
           << match[1]
           << " but no libdevice was linked; pass --cuda-toolkit=PATH (the "
              "CUDA root holding nvvm/libdevice) or --cuda-toolkit=none";
  return ptx;
}

} // namespace opfuse
