//===- Npy.h - NumPy .npy files in and out ----------------------*- C++ -*-===//
//
// The format every Python user can read (numpy.load) and write
// (numpy.save): a magic string, a header dict with the dtype, the order and
// the shape, then the data. Inputs read from .npy and outputs written to
// it let a user run a compiled model on their own data and compare it with
// their framework.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_NPY_H
#define OPFUSE_RUNTIME_NPY_H

#include "opfuse/Runtime/Executor.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace opfuse {

/// Reads `path` into a buffer of `dtype` and `shape`: the array must have
/// that shape, C order, and a dtype of the same kind (float for float,
/// integer or bool for integer, bool for i1); floats are rounded to
/// `dtype` (f64 and f32 arrays feed f32, f16 and bf16 inputs). The error
/// names the file and what differs.
llvm::Expected<HostBuffer> readNpy(llvm::StringRef path, DType dtype,
                                   llvm::ArrayRef<int64_t> shape);

/// Writes `buffer` to `path` as version 1.0 .npy: f32, f16, i32, i64 and
/// bool as themselves, bf16 (which NumPy lacks) widened exactly to f32.
llvm::Error writeNpy(llvm::StringRef path, const HostBuffer &buffer);

} // namespace opfuse

#endif // OPFUSE_RUNTIME_NPY_H
