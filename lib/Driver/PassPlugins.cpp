//===- PassPlugins.cpp - opt-fuse --load-pass-plugin ----------------------===//
//
// Loads researchers' pass plugins (MLIR's PassPlugin interface, as
// mlir-opt's --load-pass-plugin does) and registers every pass opfuse and
// the plugins define, so --pass-before/--pass-after pipelines can name them.
// A plugin links libopfuse.so, as the tool does, so both see one TypeID per
// op.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Driver/Driver.h"
#include "opfuse/InitAll.h"

#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace opfuse {

int loadPassPlugins(const std::vector<std::string> &paths) {
  // Registration is idempotent, but once is enough for --each-function.
  static const bool registered = [] {
    registerAllPasses();
    return true;
  }();
  (void)registered;
  for (const std::string &path : paths) {
    llvm::Expected<mlir::PassPlugin> plugin = mlir::PassPlugin::load(path);
    if (!plugin) {
      llvm::errs() << "opt-fuse: error: --load-pass-plugin=" << path << ": "
                   << llvm::toString(plugin.takeError())
                   << " (a pass plugin is a shared library that exports "
                      "mlirGetPassPluginInfo and links libopfuse.so; "
                      "docs/tutorial-new-pass.md)\n";
      return ExitIO;
    }
    plugin->registerPassRegistryCallbacks();
  }
  return ExitSuccess;
}

} // namespace opfuse
