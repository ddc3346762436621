// row_division_exactness.c - the row kernels' division through a per-row
// reciprocal (lib/Conversion/FuseToGPU/RowDivision.cpp), the same f32
// operations on the CPU, against IEEE division on 300 million random and
// special pairs. docs/numerics.md quotes its result.
//
//   cc -O2 -ffp-contract=off bench/row_division_exactness.c -lm -o /tmp/rd
//   /tmp/rd
//
// Prints how many quotients differ outside the documented range (must be
// 0), and the largest difference in ulps inside it (dividend or quotient
// below 2^-100).
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float fromBits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static int32_t toBits(float f) {
  int32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static uint64_t state = 88172645463325252ull;
static uint32_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (uint32_t)state;
}

/// What RowDivision.cpp emits: the per-row part, then the per-element one.
static float scaleOf(float b) {
  float m = fabsf(b);
  return m < 0x1p-126f ? 0x1p64f : (m > 0x1p126f ? 0x1p-64f : 1.0f);
}

static float divide(float a, float b) {
  float s = scaleOf(b);
  float scaled = b * s;
  volatile float y = 1.0f / scaled;
  float m = fabsf(scaled);
  float correction = (m >= 0x1p-126f && m <= 0x1p126f) ? y : NAN;
  a = a * s;
  float q = a * y;
  float e = fmaf(-q, scaled, a);
  float corrected = fmaf(e, correction, q);
  return (isnan(corrected) || corrected == 0.0f) ? q : corrected;
}

int main(void) {
  static const float specials[] = {
      0.0f,        -0.0f,     INFINITY,        -INFINITY, NAN,  0x1p-149f,
      0x1.8p-128f, 0x1p-126f, 0x1.fffffep127f, 0x1p127f,  3.0f, 1.0f};
  long pairs = 0, wrong = 0, inRange = 0, maxUlps = 0;
  for (long i = 0; i < 300000000; ++i) {
    float a = fromBits(next()), b = fromBits(next());
    if (i % 7 == 0)
      b = specials[next() % 12];
    if (i % 11 == 0)
      a = specials[next() % 12];
    if (i % 5 == 0) // tiny and subnormal divisors
      b = fromBits((next() & 0x807fffffu) | ((next() % 6) << 23));
    if (i % 13 == 0) // divisors beyond 2^122
      b = fromBits((next() & 0x807fffffu) | ((250 + next() % 5) << 23));
    float q = divide(a, b), ieee = a / b;
    ++pairs;
    if ((isnan(q) && isnan(ieee)) || toBits(q) == toBits(ieee))
      continue;
    long ulps = labs((long)toBits(q) - (long)toBits(ieee));
    if (fabsf(a * scaleOf(b)) < 0x1p-100f || fabsf(ieee) < 0x1p-100f) {
      ++inRange;
      if (ulps > maxUlps)
        maxUlps = ulps;
      continue;
    }
    if (wrong++ < 8)
      printf("%a / %a: %a, IEEE %a\n", a, b, q, ieee);
  }
  printf("%ld pairs: %ld differ outside the range; %ld below 2^-100 differ, "
         "by at most %ld ulp\n",
         pairs, wrong, inRange, maxUlps);
  return wrong != 0;
}
