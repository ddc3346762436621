//===- NestingDepth.h - Bounded bracket nesting of text input ---*- C++ -*-===//
//
// MLIR's parser and LLVM's JSON parser recurse once per bracket: input
// nested a hundred thousand deep overflows the stack (SIGSEGV) before
// either can report an error. Every reader of MLIR text, launch plans,
// target files and tuning caches measures the nesting first and refuses
// what no real model or plan comes near, with the place it went too deep.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_SUPPORT_NESTINGDEPTH_H
#define OPFUSE_SUPPORT_NESTINGDEPTH_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>

namespace opfuse {

/// The deepest bracket nesting any reader accepts. The 100 layers of a
/// deep model's types or a plan's JSON need a few levels each.
constexpr unsigned kMaxNestingDepth = 1000;

enum class TextSyntax {
  /// MLIR: ( [ { < nest; "..." strings and // comments do not; the > of
  /// -> closes nothing.
  Mlir,
  /// JSON: [ { nest; "..." strings do not.
  Json,
};

/// The offset of the first bracket in `text` that opens level
/// `limit + 1`, or nullopt when the nesting stays within `limit`.
std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                           TextSyntax syntax,
                                           unsigned limit = kMaxNestingDepth);

} // namespace opfuse

#endif // OPFUSE_SUPPORT_NESTINGDEPTH_H
