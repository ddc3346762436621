//===- Converters.h - The ONNX op converters, by family ---------*- C++ -*-===//

#ifndef OPFUSE_LIB_IMPORT_CONVERTERS_H
#define OPFUSE_LIB_IMPORT_CONVERTERS_H

#include "GraphImporter.h"

namespace opfuse::onnx_import {

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
