//===- Contractions.h - The reference's matmul and conv2d -------*- C++ -*-===//
//
// The reference interpreter's contractions, the only ops whose work grows
// faster than their data: packed so that every dot product reads
// contiguous memory, several output columns at a time, and spread over the
// host's cores. Each output element is still one sum over its contraction
// index in ascending order, rounded after every addition as asked, so the
// results are those of the naive loops, bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_LIB_REFERENCE_CONTRACTIONS_H
#define OPFUSE_LIB_REFERENCE_CONTRACTIONS_H

#include "opfuse/Reference/Offload.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace opfuse::reference {

/// Sums in f64, or rounded to f32 after every addition.
void matmul(const MatmulOperands &operands, bool f64Accumulation);

/// An NHWC conv2d with filters F x KH x KW x C/groups.
struct Conv2DOperands {
  const double *input = nullptr, *filter = nullptr;
  double *out = nullptr;
  int64_t n = 0, h = 0, w = 0, c = 0;
  int64_t f = 0, kh = 0, kw = 0, cg = 0;
  int64_t oh = 0, ow = 0, groups = 1;
  int64_t strideH = 1, strideW = 1, padTop = 0, padLeft = 0;
  int64_t dilationH = 1, dilationW = 1;
  /// The input's pixels this far apart, zeros between (input_dilation).
  int64_t inputDilationH = 1, inputDilationW = 1;
};

void conv2d(const Conv2DOperands &operands, bool f64Accumulation);

/// fuse.attention: q [B, H, Sq, D], k [B, Hkv, Sk, D], v [B, Hkv, Sk, Dv]
/// and out [B, H, Sq, Dv], row-major; the mask, when set, read at element
/// strides `maskStrides` over [B, H, Sq, Sk] (0 where it broadcasts).
struct AttentionOperands {
  const double *q = nullptr, *k = nullptr, *v = nullptr, *mask = nullptr;
  double *out = nullptr;
  int64_t batch = 0, heads = 0, sq = 0, d = 0, kvHeads = 0, sk = 0, dv = 0;
  int64_t maskStrides[4] = {0, 0, 0, 0};
  double scale = 1;
  /// c in c tanh(s / c) on the scaled scores; 0 for none.
  double softcap = 0;
  bool causal = false;
};

/// Unfused: the scores, an exact softmax (a row whose keys are all hidden
/// gives zeros), then the probability-weighted sum of the values.
void attention(const AttentionOperands &operands, bool f64Accumulation);

} // namespace opfuse::reference

#endif // OPFUSE_LIB_REFERENCE_CONTRACTIONS_H
