//===- BindSymbol.h - Entry points of a library opened with dlopen -*- C++
//-*-===//
//
// The CUDA driver, cuBLAS and NCCL are opened at run time; each binds its
// entry points to typed function pointers the same way.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_RUNTIME_BINDSYMBOL_H
#define OPFUSE_LIB_RUNTIME_BINDSYMBOL_H

#include <dlfcn.h>

namespace opfuse {

/// Points `slot` at `symbol` of `library`; false (and dlerror() says why)
/// when the library lacks it.
template <typename T>
bool bindSymbol(void *library, const char *symbol, T &slot) {
  slot = reinterpret_cast<T>(dlsym(library, symbol));
  return slot != nullptr;
}

} // namespace opfuse

#endif // OPFUSE_LIB_RUNTIME_BINDSYMBOL_H
