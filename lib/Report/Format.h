//===- Format.h - Numbers for people in reports -----------------*- C++ -*-===//

#ifndef OPFUSE_LIB_REPORT_FORMAT_H
#define OPFUSE_LIB_REPORT_FORMAT_H

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace opfuse::report {

/// 2147483648 -> "2.15G", 512 -> "512": three significant digits.
std::string siCount(double value);

/// Decimal units, as bandwidths are quoted: 12582912 -> "12.6 MB".
std::string siBytes(double bytes);

/// `text` with &, <, > and " escaped for XML (the SVG pictures).
std::string xmlEscape(llvm::StringRef text);

/// "a, b, c" cut to `width` characters with a count of what was left out.
std::string opList(const std::vector<std::string> &ops, size_t width);

} // namespace opfuse::report

#endif // OPFUSE_LIB_REPORT_FORMAT_H
