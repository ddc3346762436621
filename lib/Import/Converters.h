//===- Converters.h - The ONNX op converters, by family ---------*- C++ -*-===//

#ifndef OPFUSE_LIB_IMPORT_CONVERTERS_H
#define OPFUSE_LIB_IMPORT_CONVERTERS_H

#include "GraphImporter.h"

namespace opfuse::onnx_import {

/// `x` with `before` and `after` slices of `fill` (a rank-0 value) added
/// along `axis`: a concat with broadcasts (padding that fusion reads in
/// place).
mlir::Value padAxis(GraphImporter &g, mlir::Location loc, mlir::Value x,
                    int64_t axis, int64_t before, int64_t after,
                    mlir::Value fill);

/// `x` gathered along `axis` at `indices` (in range) that the importer
/// computed; `x` itself where they are 0, 1, ..., n - 1.
mlir::Value gatherAlong(GraphImporter &g, mlir::Location loc, mlir::Value x,
                        int64_t axis, llvm::ArrayRef<int64_t> indices);

/// The axes a node names (an attribute or input it read), non-negative,
/// or every axis of `in` when it names none; failure after a diagnostic
/// for an axis outside the rank.
mlir::FailureOr<llvm::SmallVector<int64_t>>
axesOrAll(GraphImporter &g, const Node &node, mlir::RankedTensorType in,
          std::optional<llvm::SmallVector<int64_t>> given);

// Convolutions' layouts (VisionConverters.cpp), shared by Conv and
// ConvTranspose.

/// Whether every value lies in [low, 2^20]: window attributes a hostile
/// file could make overflow the shapes computed from them.
bool inRange(llvm::ArrayRef<int64_t> values, int64_t low);

/// A constant of `type` whose element at each coordinate is element
/// `sourceOf(coordinate)` (a flat index) of `x`, or zero where that is -1,
/// built here, once (a conv's filter rearranged), so that no kernel does it
/// at every run; null when `x` is not a constant the importer can read.
mlir::Value rearrangedConstant(
    GraphImporter &g, mlir::Location loc, mlir::Value x,
    mlir::RankedTensorType type,
    llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> sourceOf);

/// `x` transposed by `perm`: a constant transposed here, else a
/// fuse.transpose.
mlir::Value transposed(GraphImporter &g, mlir::Location loc, mlir::Value x,
                       llvm::ArrayRef<int64_t> perm);

/// A 1-D convolution's attribute as the 2-D one of a row of height 1:
/// `height` (1 for strides and dilations, 0 for pads) before each value.
std::optional<llvm::SmallVector<int64_t>>
lifted(std::optional<llvm::SmallVector<int64_t>> v, int64_t height);

/// A [N, C, L] tensor (or [O, I, K] filter) as [N, C, 1, L].
mlir::Value asRowOfHeightOne(GraphImporter &g, mlir::Location loc,
                             mlir::Value v);

/// The type of a [N, C, L] tensor (or [O, I, K] filter) as [N, C, 1, L].
mlir::RankedTensorType asRowOfHeightOne(mlir::RankedTensorType type);

/// A Conv's or ConvTranspose's input and filter types (inputs 0 and 1), a
/// 1-D one's (`oneD`) as rows of height 1; failure after a diagnostic for
/// other ranks (unsupported, naming `what`) or element types (naming the
/// `filterLayout` expected).
struct ConvOperandTypes {
  mlir::RankedTensorType x, w;
  bool oneD = false;
};
mlir::FailureOr<ConvOperandTypes>
convOperandTypes(GraphImporter &g, const Node &node, llvm::StringRef what,
                 llvm::StringRef filterLayout);

/// A Conv's or ConvTranspose's input as NHWC and its filter as given (a
/// 1-D node's as rows of height 1); failure when either is undefined.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
convOperands(GraphImporter &g, const Node &node, bool oneD);

/// A convolution's or pool's window attribute `name`, a 1-D node's lifted
/// to 2-D (a pad of 0, or a stride, dilation or size of 1, for the height).
std::optional<llvm::SmallVector<int64_t>>
windowInts(GraphImporter &g, const Node &node, llvm::StringRef name, bool oneD);

/// `total` padding of spatial axis `d` split into pads[d] (begin) and
/// pads[d + 2] (end) as auto_pad says: SAME_UPPER puts the larger half at
/// the end, otherwise (SAME_LOWER, an output_shape) at the beginning.
void splitPadding(llvm::StringRef autoPad, int64_t total, int d,
                  llvm::SmallVectorImpl<int64_t> &pads);

/// A window op's auto_pad applied to `pads`: SAME_UPPER and SAME_LOWER pad
/// so that each output axis is its input's over the stride, rounded up
/// (windows `extent` long), VALID pads nothing, NOTSET keeps `pads`;
/// failure after a diagnostic for another value.
mlir::LogicalResult applyAutoPad(GraphImporter &g, const Node &node,
                                 mlir::RankedTensorType x,
                                 llvm::ArrayRef<int64_t> strides,
                                 llvm::ArrayRef<int64_t> extent,
                                 llvm::SmallVectorImpl<int64_t> &pads);

/// A convolution's NHWC result `y` ([N, OH, OW, F]) as the node's output:
/// plus the node's bias (input 2, one value per channel) where it has one,
/// transposed back to NCHW and, for a 1-D convolution, to NCL; failure
/// after a diagnostic for a bias of another shape.
mlir::LogicalResult defineConvResult(GraphImporter &g, const Node &node,
                                     mlir::Value y, bool oneD);

void registerConvTransposeConverter(llvm::StringMap<Converter> &map);
void registerEinsumConverter(llvm::StringMap<Converter> &map);
void registerActivationConverters(llvm::StringMap<Converter> &map);
void registerElementwiseConverters(llvm::StringMap<Converter> &map);
void registerShapeConverters(llvm::StringMap<Converter> &map);
void registerComputeConverters(llvm::StringMap<Converter> &map);
void registerVisionConverters(llvm::StringMap<Converter> &map);
void registerNormalizationConverters(llvm::StringMap<Converter> &map);
void registerLayoutConverters(llvm::StringMap<Converter> &map);
void registerResizeConverter(llvm::StringMap<Converter> &map);

} // namespace opfuse::onnx_import

#endif // OPFUSE_LIB_IMPORT_CONVERTERS_H
