//===- NamedIo.cpp - A model's inputs from files, outputs to files --------===//
//
// The messages are the ones opt-fuse printed before opfuse-run shared them,
// so that both tools say the same about the same mistake.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/NamedIo.h"
#include "opfuse/Runtime/Npy.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <optional>

namespace opfuse {

NamedIoResult loadInputFiles(llvm::ArrayRef<std::string> specs,
                             llvm::ArrayRef<std::string> names,
                             std::vector<HostBuffer> &inputs) {
  for (const std::string &spec : specs) {
    auto [name, path] = llvm::StringRef(spec).split('=');
    if (path.empty())
      return {NamedIoProblem::Usage,
              "--inputs '" + spec + "' is not NAME=FILE.npy"};
    std::optional<size_t> index;
    std::string known;
    for (size_t i = 0; i < names.size(); ++i) {
      known += (i ? ", " : "") + names[i];
      if (names[i] == name || ("arg" + llvm::Twine(i)).str() == name)
        index = i;
    }
    if (!index || *index >= inputs.size())
      return {NamedIoProblem::Usage,
              ("--inputs names '" + name +
               "', which is not an input (the inputs are " + known + ")")
                  .str()};
    llvm::Expected<HostBuffer> loaded =
        readNpy(path, inputs[*index].dtype, inputs[*index].shape);
    if (!loaded)
      return {llvm::sys::fs::exists(path) ? NamedIoProblem::InvalidInput
                                          : NamedIoProblem::IO,
              "--inputs " + llvm::toString(loaded.takeError())};
    inputs[*index] = std::move(*loaded);
  }
  return {};
}

NamedIoResult saveOutputFiles(llvm::StringRef dir,
                              llvm::ArrayRef<std::string> names,
                              llvm::ArrayRef<HostBuffer> outputs) {
  if (dir.empty())
    return {};
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return {
        NamedIoProblem::IO,
        ("--save-outputs: cannot create " + dir + ": " + ec.message()).str()};
  for (auto [index, output] : llvm::enumerate(outputs)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, (index < names.size()
                                       ? names[index]
                                       : "result" + std::to_string(index)) +
                                      ".npy");
    if (llvm::Error error = writeNpy(path, output))
      return {NamedIoProblem::IO,
              "--save-outputs " + llvm::toString(std::move(error))};
  }
  return {};
}

} // namespace opfuse
