//===- Version.cpp - The version of the opfuse library --------------------===//
//
// The one source of libopfuse.so itself; every other object comes from the
// opfuse libraries it gathers (lib/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "opfuse/Version.h"

const char *opfuse::getVersion() { return OPFUSE_VERSION; }
