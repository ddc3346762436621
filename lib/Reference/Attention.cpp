//===- Attention.cpp - The reference's fuse.attention ---------------------===//
//
// Attention evaluated as written, one query row at a time: the scores
// q.k * scale + mask (-inf where causal hides a key), the softmax with the
// row maximum subtracted, then the weighted sum of values. In double, or
// rounded to f32 after every addition as the other contractions are.
//
//===----------------------------------------------------------------------===//

#include "Contractions.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace opfuse::reference {

void attention(const AttentionOperands &a, bool f64Accumulation) {
  auto accumulate = [&](double value) {
    return f64Accumulation ? value
                           : static_cast<double>(static_cast<float>(value));
  };
  const double minusInfinity = -std::numeric_limits<double>::infinity();
  const int64_t group = a.heads / a.kvHeads;
  std::vector<double> scores(a.sk), weights(a.dv);
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t h = 0; h < a.heads; ++h) {
      const int64_t kvHead = b * a.kvHeads + h / group;
      const double *keys = a.k + kvHead * a.sk * a.d;
      const double *values = a.v + kvHead * a.sk * a.dv;
      for (int64_t i = 0; i < a.sq; ++i) {
        const double *query = a.q + ((b * a.heads + h) * a.sq + i) * a.d;
        double top = minusInfinity;
        for (int64_t j = 0; j < a.sk; ++j) {
          double s = minusInfinity;
          if (!a.causal || j <= i) {
            double dot = 0;
            for (int64_t c = 0; c < a.d; ++c)
              dot = accumulate(dot + query[c] * keys[j * a.d + c]);
            s = dot * a.scale;
            if (a.softcap > 0)
              s = a.softcap * std::tanh(s / a.softcap);
            if (a.mask)
              s += a.mask[b * a.maskStrides[0] + h * a.maskStrides[1] +
                          i * a.maskStrides[2] + j * a.maskStrides[3]];
          }
          scores[j] = s;
          top = std::max(top, s);
        }
        // Every key hidden: exp(-inf) = 0 everywhere, and the row is 0.
        double sum = 0;
        for (int64_t j = 0; j < a.sk; ++j) {
          scores[j] = top == minusInfinity ? 0 : std::exp(scores[j] - top);
          sum = accumulate(sum + scores[j]);
        }
        std::fill(weights.begin(), weights.end(), 0.0);
        for (int64_t j = 0; j < a.sk; ++j) {
          const double p = sum > 0 ? scores[j] / sum : 0;
          if (p == 0)
            continue;
          for (int64_t c = 0; c < a.dv; ++c)
            weights[c] = accumulate(weights[c] + p * values[j * a.dv + c]);
        }
        std::copy(weights.begin(), weights.end(),
                  a.out + ((b * a.heads + h) * a.sq + i) * a.dv);
      }
    }
}

} // namespace opfuse::reference
