//===- FusionStatistics.h - What fuse-elementwise counts ---------*- C++
//-*-===//
//
// fuse-elementwise's statistics (--mlir-pass-statistics): the kernels it
// formed, what it fused, the bytes it saved, and each refusal by reason.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_FUSIONSTATISTICS_H
#define OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_FUSIONSTATISTICS_H

#include "opfuse/Dialect/Fuse/IR/FuseInterfaces.h"
#include "opfuse/Support/PassStatistics.h"

#include "mlir/IR/Block.h"

namespace opfuse::fuse::fusion {

/// fuse-elementwise's statistics (--mlir-pass-statistics): what it formed,
/// and each refusal by its reason.
namespace stat {
using opfuse::PassStatistic;
constexpr PassStatistic kernels{"kernels", "Kernels formed (fuse.group)"};
constexpr PassStatistic opsFused{"ops-fused",
                                 "Ops in kernels of two or more ops"};
constexpr PassStatistic bytesSaved{
    "bytes-saved", "Bytes through memory the kernels save over one kernel "
                   "per op (cost model)"};
constexpr PassStatistic recomputed{
    "recomputed", "Shared producers recomputed in a second kernel"};
constexpr PassStatistic extraOutputs{
    "extra-outputs", "Shared producers kept as an extra output"};
constexpr PassStatistic prologues{"prologues",
                                  "Chains fused as a GEMM's A prologue"};
constexpr PassStatistic siblings{
    "siblings-merged", "Row kernels merged with a sibling over the same rows"};
constexpr PassStatistic slicesStored{
    "slices-stored", "Slices of a GEMM result stored by the GEMM's kernel"};
constexpr PassStatistic notElementwise{
    "refused-not-elementwise",
    "Refused: the op on the other side is not elementwise"};
constexpr PassStatistic gemmOperand{
    "refused-gemm-operand",
    "Refused: a GEMM reads the result from memory (no prologue)"};
constexpr PassStatistic prologueRefused{
    "refused-prologue", "Refused as a GEMM prologue (cost, shape or option)"};
constexpr PassStatistic reductionEpilogue{
    "refused-reduction-epilogue",
    "Refused: the op is another reduction's epilogue"};
constexpr PassStatistic unreadViews{
    "refused-unread-views",
    "Refused: the chain's views would go through memory in a row kernel"};
constexpr PassStatistic reshape{
    "refused-reshape", "Refused: a reshape that cannot join the kernel"};
constexpr PassStatistic cycle{"refused-cycle",
                              "Refused: fusing would form a cycle"};
constexpr PassStatistic noEmitter{
    "refused-no-emitter", "Refused: no emitter runs the kernel with the op"};
constexpr PassStatistic shared{
    "refused-shared-producer",
    "Refused: a shared producer neither recomputed nor an extra output"};
constexpr PassStatistic slicesNotStored{
    "refused-slices-stored",
    "Refused: slices of a GEMM result stay views of the whole"};
} // namespace stat

inline void count(const opfuse::PassStatistic &statistic, uint64_t value = 1) {
  opfuse::addPassStatistic("fuse-elementwise", statistic, value);
}

/// Bytes the ops of `block` move through memory, by the cost model.
inline int64_t bytesThroughMemory(mlir::Block &block) {
  int64_t bytes = 0;
  for (mlir::Operation &op : block.without_terminator())
    if (auto cost = mlir::dyn_cast<CostInterface>(&op))
      bytes += cost.getBytesRead() + cost.getBytesWritten();
  return bytes;
}

} // namespace opfuse::fuse::fusion

#endif // OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_FUSIONSTATISTICS_H
