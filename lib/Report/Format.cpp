//===- Format.cpp - Numbers for people in reports -------------------------===//

#include "Format.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace opfuse::report {

std::string siCount(double value) {
  static const char *suffixes[] = {"", "K", "M", "G", "T", "P"};
  int index = 0;
  while (std::fabs(value) >= 1000 && index < 5) {
    value /= 1000;
    ++index;
  }
  if (index == 0)
    return llvm::formatv("{0}", static_cast<long long>(std::llround(value)));
  int decimals = std::fabs(value) < 10 ? 2 : std::fabs(value) < 100 ? 1 : 0;
  return llvm::formatv("{0}{1}", llvm::format("%.*f", decimals, value),
                       suffixes[index])
      .str();
}

std::string siBytes(double bytes) {
  std::string count = siCount(bytes);
  if (!count.empty() && std::isalpha(static_cast<unsigned char>(count.back())))
    return count.substr(0, count.size() - 1) + " " + count.back() + "B";
  return count + " B";
}

std::string xmlEscape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

std::string opList(const std::vector<std::string> &ops, size_t width) {
  std::string text;
  for (size_t i = 0; i < ops.size(); ++i) {
    std::string next = (text.empty() ? "" : text + ",") + ops[i];
    std::string rest = i + 1 < ops.size()
                           ? llvm::formatv(",+{0}", ops.size() - i - 1).str()
                           : "";
    if (next.size() + rest.size() > width && !text.empty())
      return text + llvm::formatv(",+{0}", ops.size() - i).str();
    text = next;
  }
  return text;
}

} // namespace opfuse::report
