//===- GpuReference.cpp - --check's reference matmuls on the GPU ----------===//
//
// Row-major C = A B is column-major C^T = B^T A^T: DGEMM gets B first, each
// operand transposed when the model says so, and every output batch is one
// DGEMM on the batches it reads (broadcast batches read the same memory).
//
//===----------------------------------------------------------------------===//

#include "GpuReference.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace opfuse {

namespace {
/// Device memory released when it goes out of scope.
struct DeviceArray {
  cuda::Driver &driver;
  cuda::CUdeviceptr pointer = 0;
  explicit DeviceArray(cuda::Driver &driver) : driver(driver) {}
  ~DeviceArray() { driver.release(pointer); }
  llvm::Error allocate(size_t bytes) {
    llvm::Expected<cuda::CUdeviceptr> p = driver.allocate(bytes);
    if (!p)
      return p.takeError();
    pointer = *p;
    return llvm::Error::success();
  }
};
} // namespace

std::vector<DgemmCall> planDgemms(const reference::MatmulOperands &p) {
  std::vector<DgemmCall> calls;
  for (auto [batch, aBatch, bBatch] : llvm::enumerate(p.aBatchOf, p.bBatchOf)) {
    DgemmCall call;
    call.transposeX = p.transposeB;
    call.transposeY = p.transposeA;
    call.m = p.cols;
    call.n = p.rows;
    call.k = p.k;
    // Row-major B (k x cols) is column-major cols x k: B^T as it lies.
    call.xOffset = bBatch * p.k * p.cols;
    call.ldx = p.transposeB ? p.k : p.cols;
    call.yOffset = aBatch * p.rows * p.k;
    call.ldy = p.transposeA ? p.rows : p.k;
    call.cOffset = static_cast<int64_t>(batch) * p.rows * p.cols;
    call.ldc = p.cols;
    calls.push_back(call);
  }
  return calls;
}

llvm::Error GpuMatmulOffload::run(const reference::MatmulOperands &p) {
  const int64_t aBatches = *llvm::max_element(p.aBatchOf) + 1;
  const int64_t bBatches = *llvm::max_element(p.bBatchOf) + 1;
  const int64_t outBatches = p.aBatchOf.size();
  const size_t aBytes = aBatches * p.rows * p.k * sizeof(double);
  const size_t bBytes = bBatches * p.k * p.cols * sizeof(double);
  const size_t outBytes = outBatches * p.rows * p.cols * sizeof(double);
  DeviceArray a(driver), b(driver), out(driver);
  if (llvm::Error e = a.allocate(aBytes))
    return e;
  if (llvm::Error e = b.allocate(bBytes))
    return e;
  if (llvm::Error e = out.allocate(outBytes))
    return e;
  if (llvm::Error e = driver.copyToDevice(a.pointer, p.a, aBytes))
    return e;
  if (llvm::Error e = driver.copyToDevice(b.pointer, p.b, bBytes))
    return e;
  for (const DgemmCall &call : planDgemms(p))
    if (llvm::Error e = cublas->dgemm(
            call.transposeX, call.transposeY, call.m, call.n, call.k,
            b.pointer + call.xOffset * sizeof(double), call.ldx,
            a.pointer + call.yOffset * sizeof(double), call.ldy,
            out.pointer + call.cOffset * sizeof(double), call.ldc))
      return e;
  if (llvm::Error e = driver.synchronize())
    return e;
  return driver.copyToHost(p.out, out.pointer, outBytes);
}

bool GpuMatmulOffload::matmul(const reference::MatmulOperands &operands) {
  if (operands.multiplyAdds() < kMinMultiplyAdds || operands.aBatchOf.empty())
    return false;
  if (std::max({operands.rows, operands.cols, operands.k}) > INT_MAX)
    return false;
  if (llvm::Error error = run(operands)) {
    std::string message = llvm::toString(std::move(error));
    if (firstFailure.empty())
      firstFailure = message;
    return false;
  }
  ++offloaded;
  return true;
}

} // namespace opfuse
