//===- PtxMerge.h - One PTX module from several ------------------*- C++
//-*-===//
//
// fuse-serialize-kernels compiles the kernels of a large gpu.module in
// parts, in parallel, and the runtime loads one PTX module: the parts'
// texts are joined here.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_CONVERSION_FUSETOGPU_PTXMERGE_H
#define OPFUSE_CONVERSION_FUSETOGPU_PTXMERGE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace opfuse {

/// The PTX modules `parts` (NVPTX output for one target) as one module: the
/// first part's header (.version, .target, .address_size) once, then every
/// part's top-level statements in order, a statement identical to an
/// earlier one (a shared declaration, a library function both parts
/// define) kept once. Fails, saying why in `error`, when the headers differ
/// or two different statements define one symbol.
std::optional<std::string>
mergePtxModules(llvm::ArrayRef<llvm::StringRef> parts, std::string &error);

} // namespace opfuse

#endif // OPFUSE_CONVERSION_FUSETOGPU_PTXMERGE_H
