//===- NestingDepth.cpp - Bounded bracket nesting of text input -----------===//
//
// One pass over the bytes, with no recursion of its own: strings and
// comments are skipped so that brackets inside them do not count, and a
// closing bracket never takes the depth below zero (malformed input is the
// parser's to report).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Support/NestingDepth.h"

namespace opfuse {

std::optional<size_t> findExcessiveNesting(llvm::StringRef text,
                                           TextSyntax syntax, unsigned limit) {
  const bool mlir = syntax == TextSyntax::Mlir;
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    const char c = text[i];
    if (c == '"') {
      // To the closing quote, past escaped characters.
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      continue;
    }
    if (mlir && c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i < e && text[i] != '\n')
        ++i;
      continue;
    }
    const bool opens = c == '[' || c == '{' || (mlir && (c == '(' || c == '<'));
    const bool closes =
        c == ']' || c == '}' ||
        (mlir && (c == ')' || (c == '>' && (i == 0 || text[i - 1] != '-'))));
    if (opens && ++depth > limit)
      return i;
    if (closes && depth > 0)
      --depth;
  }
  return std::nullopt;
}

} // namespace opfuse
