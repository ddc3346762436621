//===- HostBuffer.cpp - Host tensors and seeded inputs --------------------===//
//
// bf16 and f16 are encoded and decoded here by hand (round to nearest even),
// so the reference and the GPU see bit-identical inputs.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Executor.h"
#include "opfuse/Runtime/HalfFloat.h"

#include <cmath>
#include <cstring>

namespace opfuse {

namespace {
/// splitmix64: small, fast and the same on every machine.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};
} // namespace

int64_t HostBuffer::elements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

double HostBuffer::get(int64_t i) const {
  const uint8_t *p = bytes.data() + i * dtypeBytes(dtype);
  switch (dtype) {
  case DType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return decodeBF16(v);
  }
  case DType::F16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return decodeF16(v);
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  case DType::I1:
    return *p ? 1.0 : 0.0;
  }
  return 0;
}

void HostBuffer::set(int64_t i, double value) {
  uint8_t *p = bytes.data() + i * dtypeBytes(dtype);
  switch (dtype) {
  case DType::F32: {
    float v = float(value);
    std::memcpy(p, &v, 4);
    return;
  }
  case DType::BF16: {
    uint16_t v = encodeBF16(float(value));
    std::memcpy(p, &v, 2);
    return;
  }
  case DType::F16: {
    uint16_t v = encodeF16(float(value));
    std::memcpy(p, &v, 2);
    return;
  }
  case DType::I32: {
    int32_t v = int32_t(value);
    std::memcpy(p, &v, 4);
    return;
  }
  case DType::I64: {
    int64_t v = int64_t(value);
    std::memcpy(p, &v, 8);
    return;
  }
  case DType::I1:
    *p = value != 0;
    return;
  }
}

HostBuffer makeHostBuffer(DType dtype, const std::vector<int64_t> &shape) {
  HostBuffer buffer;
  buffer.dtype = dtype;
  buffer.shape = shape;
  buffer.bytes.assign(buffer.elements() * dtypeBytes(dtype), 0);
  return buffer;
}

std::vector<HostBuffer> generateInputs(const LaunchPlan &plan, uint64_t seed) {
  std::vector<PlanBuffer> specs;
  for (int id : plan.inputs)
    specs.push_back(plan.buffers[id]);
  return generateInputs(specs, seed);
}

std::vector<HostBuffer> generateInputs(llvm::ArrayRef<PlanBuffer> specs,
                                       uint64_t seed) {
  std::vector<HostBuffer> inputs;
  for (auto [position, spec] : llvm::enumerate(specs)) {
    HostBuffer buffer = makeHostBuffer(spec.dtype, spec.shape);
    Random random{seed * 1000003ULL + position};
    for (int64_t i = 0, e = buffer.elements(); i < e; ++i) {
      switch (spec.dtype) {
      case DType::F32:
      case DType::F16:
      case DType::BF16:
        buffer.set(i, (random.uniform() * 2.0 - 1.0) * spec.seedRange);
        break;
      case DType::I32:
      case DType::I64:
        buffer.set(i, double(int64_t(random.next() % 17) - 8));
        break;
      case DType::I1:
        buffer.set(i, double(random.next() & 1));
        break;
      }
    }
    inputs.push_back(std::move(buffer));
  }
  return inputs;
}

} // namespace opfuse
