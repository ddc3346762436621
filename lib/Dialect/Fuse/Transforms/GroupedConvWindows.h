//===- GroupedConvWindows.h - Grouped convolutions as windows ---*- C++ -*-===//
//
// fuse-decompose's rewrite of a grouped conv2d (depthwise among them) of few
// products an output into the strided windows of its padded input.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_GROUPEDCONVWINDOWS_H
#define OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_GROUPEDCONVWINDOWS_H

#include "opfuse/Dialect/Fuse/IR/GemmKernel.h"

#include "mlir/IR/Builders.h"

namespace opfuse::fuse {

/// The convolution as the sum, over its taps and each group's input
/// channels, of a strided window of the zero-padded input (gathered onto
/// the output channels where a group has several) times that tap's weight
/// per output channel; accumulated in f32 and rounded once.
mlir::Value buildConvWindows(mlir::OpBuilder &b, Conv2DOp op);

} // namespace opfuse::fuse

#endif // OPFUSE_LIB_DIALECT_FUSE_TRANSFORMS_GROUPEDCONVWINDOWS_H
