//===- HalfFloat.h - bf16 and f16 encoding ----------------------*- C++ -*-===//
//
// Round-to-nearest-even conversions shared by the runtime's host buffers
// and the reference interpreter, so both see the same bits.
//
//===----------------------------------------------------------------------===//

#ifndef OPFUSE_RUNTIME_HALFFLOAT_H
#define OPFUSE_RUNTIME_HALFFLOAT_H

#include <cstdint>

namespace opfuse {
uint16_t encodeBF16(float value);
float decodeBF16(uint16_t bits);
uint16_t encodeF16(float value);
float decodeF16(uint16_t bits);
} // namespace opfuse

#endif // OPFUSE_RUNTIME_HALFFLOAT_H
