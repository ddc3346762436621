//===- KernelInterpreter.h - Run emitted kernels on the host ----*- C++ -*-===//
//
// Executes a gpu.func as convert-fuse-to-gpu emits it, before NVPTX, on
// host byte buffers, so that a machine without a GPU checks what a kernel
// reads and writes (opt-fuse --check-on-host, the unit tests): every load
// and store is checked against its buffer's bounds and its stated
// alignment, and shared memory against races between barriers. Loop, view,
// row and transpose kernels run; kernels with tensor-core, TMA or
// asynchronous-copy operations are refused before they start.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_REFERENCE_KERNELINTERPRETER_H
#define OPFUSE_REFERENCE_KERNELINTERPRETER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opfuse::reference {

/// The first op of `kernel` the interpreter does not run, as "'name' at
/// location"; nullopt when it runs them all.
std::optional<std::string> findUninterpretedOp(mlir::gpu::GPUFuncOp kernel);

/// Runs `kernel` on a grid of `grid` blocks (x, and y and z where given) of
/// `block` threads, each block in lockstep with `sharedBytes` of dynamic
/// shared memory; `buffers[i]` is the memory its pointer argument i points
/// to. Returns an empty string, or what stopped it (the op, the thread and
/// why: an access out of bounds or misaligned, a race, an op it does not
/// run).
std::string interpretKernel(mlir::gpu::GPUFuncOp kernel,
                            llvm::ArrayRef<int64_t> grid, int64_t block,
                            std::vector<std::vector<uint8_t>> &buffers,
                            int64_t sharedBytes = 0);

} // namespace opfuse::reference

#endif // OPFUSE_REFERENCE_KERNELINTERPRETER_H
