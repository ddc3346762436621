//===- ExitCodes.cpp - Exit codes of the opfuse tools ---------------------===//

#include "opfuse/Driver/ExitCodes.h"

const char *opfuse::describeExitCodes() {
  return "EXIT CODES:\n"
         "  0  success\n"
         "  1  invalid input: parse, verifier or shape error "
         "(file:line:col: error: ...)\n"
         "  2  usage error: unknown option, bad option value, missing input\n"
         "  3  I/O error: an input cannot be read or an output cannot be "
         "written\n";
}
