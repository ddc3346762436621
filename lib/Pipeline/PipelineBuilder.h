//===- PipelineBuilder.h - Adding the pipeline's passes, with hooks -*- C++
//-*-===//
//
// Every pass of opt-fuse's pipeline is added through one builder, so that
// --pass-before/--pass-after pipelines go in beside their anchor, at its
// nesting, and so that the pipeline's passes can be listed to check the
// anchors before anything runs.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_PIPELINE_PIPELINEBUILDER_H
#define OPFUSE_LIB_PIPELINE_PIPELINEBUILDER_H

#include "opfuse/Pipeline/Pipeline.h"

#include "mlir/Pass/Pass.h"

#include <memory>
#include <string>
#include <vector>

namespace opfuse {

class PipelineBuilder {
public:
  /// Adds to `pm` (anchored on builtin.module) the passes it is given and
  /// the hooks of `options` around them. With `record`, appends each pass's
  /// place to it too.
  PipelineBuilder(mlir::OpPassManager &pm, const CompileOptions &options,
                  std::vector<PipelinePass> *record = nullptr)
      : pm(pm), options(options), record(record) {}

  /// Adds `pass` on every op named `nesting` directly inside the module, or
  /// on the module itself when `nesting` is empty, with the hooks anchored
  /// on its argument before and after it.
  void add(std::unique_ptr<mlir::Pass> pass, llvm::StringRef nesting = "");

  const CompileOptions &getOptions() const { return options; }

private:
  void addHooks(llvm::StringRef anchor, bool after, llvm::StringRef nesting);
  mlir::OpPassManager &at(llvm::StringRef nesting);

  mlir::OpPassManager &pm;
  const CompileOptions &options;
  std::vector<PipelinePass> *record;
};

/// buildFusionPasses, buildKernelEmissionPasses and buildFusePipeline
/// through `builder` (Pipeline.cpp).
void buildFusionPasses(PipelineBuilder &builder);
void buildKernelEmissionPasses(PipelineBuilder &builder);
void buildFusePipeline(PipelineBuilder &builder);

} // namespace opfuse

#endif // OPFUSE_LIB_PIPELINE_PIPELINEBUILDER_H
