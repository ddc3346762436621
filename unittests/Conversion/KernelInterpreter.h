//===- KernelInterpreter.h - Run emitted loop kernels on host ---*- C++ -*-===//
//
// Executes a gpu.func as convert-fuse-to-gpu emits it, before NVPTX, one
// thread after another over host byte buffers, so that a machine without a
// GPU checks what a kernel reads and writes: every load and store is
// bounds- and alignment-checked, and an op it does not know is an error,
// never skipped. Threads run to completion one at a time, which is exact
// for kernels whose threads share nothing (loop kernels: no shared memory,
// no shuffles); others are refused at their first shared-memory access.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_UNITTESTS_CONVERSION_KERNELINTERPRETER_H
#define OPFUSE_UNITTESTS_CONVERSION_KERNELINTERPRETER_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opfuse::test {

/// Runs `kernel` on a grid of `grid` x 1 x 1 blocks of `block` threads;
/// `buffers[i]` is the memory its pointer argument i points to. Returns an
/// empty string, or what stopped it (the op, the thread and why).
std::string interpretKernel(mlir::gpu::GPUFuncOp kernel, int64_t grid,
                            int64_t block,
                            std::vector<std::vector<uint8_t>> &buffers);

} // namespace opfuse::test

#endif // OPFUSE_UNITTESTS_CONVERSION_KERNELINTERPRETER_H
