//===- OutputCheck.h - One output of --check against the reference -*- C++
//-*-===//
//
// What --check found for each output: its errors against the reference and
// the bounds they were held to (docs/numerics.md), printed as one line per
// output for people or as a JSON array inside the --bench --json document
// or the report.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_REPORT_OUTPUTCHECK_H
#define OPFUSE_REPORT_OUTPUTCHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace opfuse {

struct OutputCheck {
  unsigned index = 0;
  /// The output's type, and the precision it is judged at when narrower
  /// ("f32 via bf16", "f32 via tf32").
  std::string dtype;
  int64_t elements = 0;
  double maxAbs = 0;
  /// The largest |gpu - ref| / scale, and its bound.
  double maxScaled = 0, elementTolerance = 0;
  /// ||gpu - ref|| / ||ref||, and its bound.
  double relativeL2 = 0, l2Tolerance = 0;
  /// With --numerics=strict, for outputs judged at f16 or bf16: the
  /// largest |gpu - ref| in units in the last place of that type at the
  /// element's scale max(|ref|, E), and its bound; negative when not
  /// measured.
  double maxUlps = -1, ulpTolerance = 0;
  /// Elements that differ downstream of a comparison whose operands lie
  /// within their rounding of each other, judged with the other branch
  /// allowed (docs/numerics.md).
  int64_t tieElements = 0;
  /// A NaN in one result where the other has a number.
  bool nanMismatch = false;
  bool pass = false;
  /// The worst element (-1 when every element matches) and its values.
  int64_t worst = -1;
  double got = 0, expected = 0;
};

/// One line per output ("check output #0 (bf16, ...): PASS"), the worst
/// element and any NaN mismatch below a failing one.
void printOutputChecks(llvm::raw_ostream &os,
                       llvm::ArrayRef<OutputCheck> checks);

/// The same as a JSON array of objects.
llvm::json::Array outputChecksToJson(llvm::ArrayRef<OutputCheck> checks);

} // namespace opfuse

#endif // OPFUSE_REPORT_OUTPUTCHECK_H
