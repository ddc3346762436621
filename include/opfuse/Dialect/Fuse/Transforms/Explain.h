//===- Explain.h - --fuse-explain remarks, as text and structured -*- C++
//-*-===//
//
// Every --fuse-explain decision is a remark printed as text (as always)
// and, when the context has MLIR's remark engine (opt-fuse
// --remarks-output-file), a structured remark too: the pass as its
// category, the outcome (passed, missed, analysis), a name for the kind of
// decision and the reason, which YAML consumers read without parsing prose.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_DIALECT_FUSE_TRANSFORMS_EXPLAIN_H
#define OPFUSE_DIALECT_FUSE_TRANSFORMS_EXPLAIN_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/Twine.h"

namespace opfuse::fuse {

enum class ExplainKind {
  /// A fusion or rewrite was made.
  Passed,
  /// One was possible in shape but not made: the reason says why.
  Missed,
  /// A figure of what a pass did (the arena, a buffer written in place).
  Analysis,
};

/// The structured remark of `pass` at `op` (nothing without a remark
/// engine); `name` is the kind of decision ("fused", "not-fused", ...).
void emitStructuredRemark(mlir::Operation *op, llvm::StringRef pass,
                          ExplainKind kind, llvm::StringRef name,
                          const llvm::Twine &reason);

/// Both: the text remark "<pass>: <message>" at `op` and the structured one.
void explainAt(mlir::Operation *op, llvm::StringRef pass, ExplainKind kind,
               llvm::StringRef name, const llvm::Twine &message);

} // namespace opfuse::fuse

#endif // OPFUSE_DIALECT_FUSE_TRANSFORMS_EXPLAIN_H
