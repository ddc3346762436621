//===- MessageError.h - An llvm::Error that is its message ------*- C++ -*-===//
//
// The runtime's errors differ only in what the caller does with them (the
// exit code); each is a class of its own for errorIsA<>, with this body.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_MESSAGEERROR_H
#define OPFUSE_RUNTIME_MESSAGEERROR_H

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace opfuse {

/// An error whose kind is `Derived` (which declares `static char ID`) and
/// whose text is its message.
template <typename Derived>
class MessageError : public llvm::ErrorInfo<Derived> {
public:
  explicit MessageError(std::string message) : message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  std::string message;
};

} // namespace opfuse

#endif // OPFUSE_RUNTIME_MESSAGEERROR_H
