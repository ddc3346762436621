//===- Contractions.cpp - The reference's matmul and conv2d ---------------===//
//
// A matmul packs every operand batch it reads so that row i of A and
// column j of B are contiguous, then computes each output row on its own
// thread, kColumns columns at once (with f64 sums): independent sums whose
// additions overlap in the pipeline, each still in ascending contraction
// order.
//
//===----------------------------------------------------------------------===//

#include "Contractions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Parallel.h"

#include <vector>

namespace opfuse::reference {

namespace {

/// Output columns computed together (independent accumulators).
constexpr int64_t kColumns = 8;

template <bool F64> double roundSum(double v) {
  return F64 ? v : static_cast<double>(static_cast<float>(v));
}

/// Row-major (outer x inner) copies of the batches `batchOf` names, from
/// `data` holding them as (inner x outer) when `transposed`, else used in
/// place.
struct Packed {
  std::vector<std::vector<double>> copies;
  llvm::DenseMap<int64_t, const double *> rowsOf;
};

Packed pack(const double *data, llvm::ArrayRef<int64_t> batchOf, int64_t outer,
            int64_t inner, bool transposed) {
  Packed packed;
  for (int64_t batch : batchOf) {
    if (packed.rowsOf.count(batch))
      continue;
    const double *source = data + batch * outer * inner;
    if (!transposed) {
      packed.rowsOf[batch] = source;
      continue;
    }
    std::vector<double> &copy = packed.copies.emplace_back(outer * inner);
    for (int64_t x = 0; x < inner; ++x)
      for (int64_t o = 0; o < outer; ++o)
        copy[o * inner + x] = source[x * outer + o];
    packed.rowsOf[batch] = copy.data();
  }
  return packed;
}

template <bool F64>
void matmulRows(const MatmulOperands &p, const Packed &a, const Packed &b) {
  const int64_t batches = p.aBatchOf.size();
  llvm::parallelFor(0, batches * p.rows, [&](size_t index) {
    const int64_t batch = index / p.rows, i = index % p.rows;
    const double *row = a.rowsOf.lookup(p.aBatchOf[batch]) + i * p.k;
    const double *columns = b.rowsOf.lookup(p.bBatchOf[batch]);
    double *out = p.out + index * p.cols;
    int64_t j = 0;
    // Blocks of columns in f64 only: GCC 12.2 at -O3 vectorises the f32
    // variant of this loop and leaves some lanes' sums unrounded (the
    // unit test MatmulEqualsTheNaiveLoopBitForBit caught it); one column at
    // a time is a dependent chain it compiles as written.
    for (; F64 && j + kColumns <= p.cols; j += kColumns) {
      double acc[kColumns] = {};
      const double *col = columns + j * p.k;
      for (int64_t x = 0; x < p.k; ++x) {
        const double v = row[x];
        for (int64_t c = 0; c < kColumns; ++c)
          acc[c] = roundSum<F64>(acc[c] + v * col[c * p.k + x]);
      }
      for (int64_t c = 0; c < kColumns; ++c)
        out[j + c] = acc[c];
    }
    for (; j < p.cols; ++j) {
      double acc = 0;
      const double *col = columns + j * p.k;
      for (int64_t x = 0; x < p.k; ++x)
        acc = roundSum<F64>(acc + row[x] * col[x]);
      out[j] = acc;
    }
  });
}

template <bool F64> void conv2dRows(const Conv2DOperands &p) {
  const int64_t fg = p.f / p.groups;
  llvm::parallelFor(0, p.n * p.oh, [&](size_t index) {
    const int64_t n = index / p.oh, oh = index % p.oh;
    for (int64_t ow = 0; ow < p.ow; ++ow)
      for (int64_t f = 0; f < p.f; ++f) {
        const int64_t g = f / fg;
        double acc = 0;
        for (int64_t kh = 0; kh < p.kh; ++kh)
          for (int64_t kw = 0; kw < p.kw; ++kw) {
            // In the dilated input; the taps between its pixels read zeros.
            const int64_t sh = oh * p.strideH - p.padTop + kh * p.dilationH;
            const int64_t sw = ow * p.strideW - p.padLeft + kw * p.dilationW;
            if (sh < 0 || sw < 0 || sh % p.inputDilationH != 0 ||
                sw % p.inputDilationW != 0)
              continue;
            const int64_t ih = sh / p.inputDilationH;
            const int64_t iw = sw / p.inputDilationW;
            if (ih >= p.h || iw >= p.w)
              continue;
            const double *x =
                p.input + ((n * p.h + ih) * p.w + iw) * p.c + g * p.cg;
            const double *w = p.filter + ((f * p.kh + kh) * p.kw + kw) * p.cg;
            for (int64_t cg = 0; cg < p.cg; ++cg)
              acc = roundSum<F64>(acc + x[cg] * w[cg]);
          }
        p.out[((n * p.oh + oh) * p.ow + ow) * p.f + f] = acc;
      }
  });
}

} // namespace

void matmul(const MatmulOperands &p, bool f64Accumulation) {
  // A as rows of k, B as columns of k.
  Packed a = pack(p.a, p.aBatchOf, p.rows, p.k, p.transposeA);
  Packed b = pack(p.b, p.bBatchOf, p.cols, p.k, !p.transposeB);
  if (f64Accumulation)
    matmulRows<true>(p, a, b);
  else
    matmulRows<false>(p, a, b);
}

void conv2d(const Conv2DOperands &p, bool f64Accumulation) {
  if (f64Accumulation)
    conv2dRows<true>(p);
  else
    conv2dRows<false>(p);
}

} // namespace opfuse::reference
