//===- Version.h - The version of the opfuse library ------------*- C++ -*-===//
//
// A pass plugin built against one opfuse and loaded into another would
// share no op TypeIDs with it; comparing versions lets it say so instead.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_VERSION_H
#define OPFUSE_VERSION_H

namespace opfuse {

/// The version of the libopfuse.so this process runs, as "MAJOR.MINOR.PATCH"
/// (the project version of the build that made it).
const char *getVersion();

} // namespace opfuse

#endif // OPFUSE_VERSION_H
