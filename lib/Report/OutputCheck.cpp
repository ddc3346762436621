//===- OutputCheck.cpp - One output of --check against the reference ------===//

#include "opfuse/Report/OutputCheck.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace opfuse {

void printOutputChecks(llvm::raw_ostream &os,
                       llvm::ArrayRef<OutputCheck> checks) {
  for (const OutputCheck &c : checks) {
    os << llvm::formatv(
        "check output #{0} ({1}, {2} elements): max abs {3:e3}, max "
        "abs/scale {4:e3} (tolerance {5:e2}), relative L2 {6:e3} "
        "(tolerance {7:e2}){8}{9}: {10}\n",
        c.index, c.dtype, c.elements, c.maxAbs, c.maxScaled, c.elementTolerance,
        c.relativeL2, c.l2Tolerance,
        c.maxUlps < 0 ? std::string()
                      : llvm::formatv(", max {0:F1} ulps (tolerance {1:F0})",
                                      c.maxUlps, c.ulpTolerance)
                            .str(),
        c.tieElements == 0
            ? std::string()
            : llvm::formatv(", {0} element(s) at a comparison's tie",
                            c.tieElements)
                  .str(),
        c.pass ? "PASS" : "FAIL");
    if (!c.pass && c.worst >= 0)
      os << llvm::formatv("  worst element {0}: got {1}, expected {2}\n",
                          c.worst, c.got, c.expected);
    if (c.nanMismatch)
      os << "  NaN in one result where the other has a number\n";
  }
}

llvm::json::Array outputChecksToJson(llvm::ArrayRef<OutputCheck> checks) {
  // JSON has no infinity: an infinite error is written as null.
  auto number = [](double v) -> llvm::json::Value {
    if (std::isfinite(v))
      return v;
    return nullptr;
  };
  llvm::json::Array array;
  for (const OutputCheck &c : checks) {
    llvm::json::Object object{
        {"output", static_cast<int64_t>(c.index)},
        {"dtype", c.dtype},
        {"elements", c.elements},
        {"max_abs", number(c.maxAbs)},
        {"max_abs_over_scale", number(c.maxScaled)},
        {"element_tolerance", c.elementTolerance},
        {"relative_l2", number(c.relativeL2)},
        {"l2_tolerance", c.l2Tolerance},
        {"nan_mismatch", c.nanMismatch},
        {"tie_elements", c.tieElements},
        {"pass", c.pass},
    };
    if (c.maxUlps >= 0) {
      object["max_ulps"] = number(c.maxUlps);
      object["ulp_tolerance"] = c.ulpTolerance;
    }
    if (c.worst >= 0)
      object["worst"] = llvm::json::Object{{"element", c.worst},
                                           {"got", number(c.got)},
                                           {"expected", number(c.expected)}};
    array.push_back(std::move(object));
  }
  return array;
}

} // namespace opfuse
