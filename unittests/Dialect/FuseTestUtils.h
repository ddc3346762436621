//===- FuseTestUtils.h - Parse fuse IR snippets in unit tests ---*- C++ -*-===//
//
// A fixture that parses a function body and hands back its first op of a
// given kind, so each test states its IR and the numbers it expects.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_UNITTESTS_DIALECT_FUSETESTUTILS_H
#define OPFUSE_UNITTESTS_DIALECT_FUSETESTUTILS_H

#include "opfuse/Dialect/Fuse/IR/FuseOps.h"
#include "opfuse/InitAll.h"
#include "opfuse/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <random>

namespace opfuse::test {

class FuseTest : public ::testing::Test {
protected:
  FuseTest() : context(makeRegistry()) { context.loadAllAvailableDialects(); }

  /// Parses `source` (a whole module) and returns its first `OpTy`; fails
  /// the test when parsing or verification fails or no such op exists.
  template <typename OpTy> OpTy parseFirst(llvm::StringRef source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "failed to parse:\n" << source.str();
    if (!module)
      return OpTy();
    OpTy found;
    module->walk([&](OpTy op) {
      if (!found)
        found = op;
    });
    EXPECT_TRUE(found) << "no " << OpTy::getOperationName().str() << " in:\n"
                       << source.str();
    return found;
  }

  /// The message of the last diagnostic `run` emits (empty if none).
  std::string lastDiagnostic(llvm::function_ref<void()> run) {
    std::string message;
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      message = d.str();
      return mlir::success();
    });
    run();
    return message;
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;

private:
  static mlir::DialectRegistry makeRegistry() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }
};

/// FLOPs, bytes read, bytes written and link bytes of one op.
struct Cost {
  int64_t flops, read, written, communication;
  bool operator==(const Cost &other) const {
    return flops == other.flops && read == other.read &&
           written == other.written && communication == other.communication;
  }
};

inline Cost costOf(fuse::CostInterface op) {
  return {op.getFlops(), op.getBytesRead(), op.getBytesWritten(),
          op.getCommunicationBytes()};
}

inline std::ostream &operator<<(std::ostream &os, const Cost &cost) {
  return os << "{flops " << cost.flops << ", read " << cost.read << ", written "
            << cost.written << ", communication " << cost.communication << "}";
}

/// Arguments for `func`: offset + U(-1, 1) from `seed`, rounded to each
/// argument's element type.
inline llvm::SmallVector<reference::Tensor>
uniformArguments(mlir::func::FuncOp func, unsigned seed, double offset = 0) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  llvm::SmallVector<reference::Tensor> arguments;
  for (mlir::Type type : func.getArgumentTypes()) {
    auto tensor = mlir::cast<mlir::RankedTensorType>(type);
    reference::Tensor t;
    t.elementType = tensor.getElementType();
    t.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    t.data.resize(tensor.getNumElements());
    for (double &x : t.data)
      x = reference::roundTo(t.elementType, offset + uniform(random));
    arguments.push_back(std::move(t));
  }
  return arguments;
}

} // namespace opfuse::test

#endif // OPFUSE_UNITTESTS_DIALECT_FUSETESTUTILS_H
