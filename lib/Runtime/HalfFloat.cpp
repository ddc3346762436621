//===- HalfFloat.cpp - bf16 and f16 encoding ------------------------------===//

#include "opfuse/Runtime/HalfFloat.h"

#include <cmath>
#include <cstring>

namespace opfuse {

namespace {
uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, 4);
  return value;
}
} // namespace

uint16_t encodeBF16(float value) {
  uint32_t bits = floatBits(value);
  if (std::isnan(value))
    return 0x7fc0;
  bits += 0x7fff + ((bits >> 16) & 1);
  return bits >> 16;
}

float decodeBF16(uint16_t bits) { return bitsFloat(uint32_t(bits) << 16); }

uint16_t encodeF16(float value) {
  // IEEE binary16 with round to nearest even, subnormals and overflow.
  uint32_t bits = floatBits(value);
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t mantissa = bits & 0x7fffff;
  int exponent = int((bits >> 23) & 0xff) - 127 + 15;
  if (((bits >> 23) & 0xff) == 0xff)
    return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 31)
    return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000;
    int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t midpoint = 1u << (shift - 1);
    if (rest > midpoint || (rest == midpoint && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return half;
}

float decodeF16(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  int exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  if (exponent == 0) {
    if (mantissa == 0)
      return bitsFloat(sign);
    float value = std::ldexp(float(mantissa), -24);
    return sign ? -value : value;
  }
  if (exponent == 31)
    return bitsFloat(sign | 0x7f800000 | (mantissa << 13));
  return bitsFloat(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

} // namespace opfuse
