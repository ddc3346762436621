//===- PassHooks.cpp - --pass-before and --pass-after ---------------------===//
//
// A researcher's pass (in-tree, or from a plugin loaded with
// --load-pass-plugin) goes into opt-fuse's own pipeline before or after one
// of its passes. Hooks are parsed and their anchors checked against the
// passes the options build before anything runs, so a typo is a usage
// error naming the passes there are, not a silently skipped pass.
//
//===----------------------------------------------------------------------===//

#include "PipelineBuilder.h"

#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace opfuse {

OpPassManager &PipelineBuilder::at(StringRef nesting) {
  return nesting.empty() ? pm : pm.nest(nesting);
}

void PipelineBuilder::addHooks(StringRef anchor, bool after,
                               StringRef nesting) {
  for (const PassHook &hook : options.hooks)
    if (hook.anchor == anchor && hook.after == after)
      // checkPassHooks parsed every hook already: this cannot fail.
      (void)parsePassPipeline(hook.pipeline, at(nesting), llvm::nulls());
}

void PipelineBuilder::add(std::unique_ptr<Pass> pass, StringRef nesting) {
  const std::string argument = pass->getArgument().str();
  if (record)
    record->push_back(
        {argument, nesting.empty() ? "builtin.module" : nesting.str()});
  addHooks(argument, /*after=*/false, nesting);
  at(nesting).addPass(std::move(pass));
  addHooks(argument, /*after=*/true, nesting);
}

std::optional<PassHook> parsePassHook(StringRef value, bool after,
                                      std::string &error) {
  const char *flag = after ? "--pass-after" : "--pass-before";
  auto [anchor, pipeline] = value.split(':');
  if (anchor.trim().empty() || pipeline.trim().empty()) {
    error = (Twine(flag) + "=" + value +
             ": expected NAME:PIPELINE, the argument of one of the "
             "pipeline's passes, a colon, and a pass pipeline such as "
             "'canonicalize' or 'my-pass{option=1}'")
                .str();
    return std::nullopt;
  }
  return PassHook{anchor.trim().str(), after, pipeline.trim().str()};
}

std::vector<PipelinePass> listPipelinePasses(const CompileOptions &options) {
  CompileOptions all = options;
  all.hooks.clear();
  all.stopAfter.reset();
  all.binary = true;
  // The NVVM lowering is in the list whether or not a toolkit is found.
  if (all.cudaToolkit == "none")
    all.cudaToolkit = "auto";
  std::vector<PipelinePass> passes;
  OpPassManager scratch("builtin.module");
  PipelineBuilder builder(scratch, all, &passes);
  buildFusePipeline(builder);
  return passes;
}

std::optional<std::string> checkPassHooks(const CompileOptions &options) {
  if (options.hooks.empty())
    return std::nullopt;
  std::vector<PipelinePass> passes = listPipelinePasses(options);
  for (const PassHook &hook : options.hooks) {
    const std::string flag =
        std::string(hook.after ? "--pass-after=" : "--pass-before=") +
        hook.anchor + ":" + hook.pipeline;
    auto anchor = llvm::find_if(passes, [&](const PipelinePass &pass) {
      return pass.argument == hook.anchor;
    });
    if (anchor == passes.end()) {
      std::string names;
      for (const PipelinePass &pass : passes)
        names += (names.empty() ? "" : ", ") + pass.argument;
      return flag + ": no pass '" + hook.anchor +
             "' in the pipeline these options build (" + names + ")";
    }
    std::string message;
    llvm::raw_string_ostream os(message);
    OpPassManager scratch(anchor->nesting);
    if (failed(parsePassPipeline(hook.pipeline, scratch, os)))
      return flag + " (parsed as a pipeline on " + anchor->nesting +
             ", where '" + hook.anchor +
             "' runs): " + StringRef(message).trim().str();
    hook.anchor + "' runs)";
  }
  return std::nullopt;
}

} // namespace opfuse
