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
