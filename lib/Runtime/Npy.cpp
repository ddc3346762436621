//===- Npy.cpp - NumPy .npy files in and out ------------------------------===//
//
// The header is a Python dict literal; only what numpy.save writes is
// accepted: 'descr' a little-endian (or byte-sized) dtype string,
// 'fortran_order' False, 'shape' a tuple of integers.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Npy.h"

#include "opfuse/Runtime/HalfFloat.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace opfuse {

namespace {
llvm::Error fail(llvm::StringRef path, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + what);
}

/// The value of `key` in the header dict, up to the next top-level comma.
llvm::StringRef field(llvm::StringRef header, llvm::StringRef key) {
  size_t at = header.find("'" + key.str() + "'");
  if (at == llvm::StringRef::npos)
    return "";
  llvm::StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return "";
  rest = rest.ltrim();
  if (rest.starts_with("(")) // The shape tuple.
    return rest.take_until([](char c) { return c == ')'; }).drop_front();
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

bool isFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16;
}
} // namespace

llvm::Expected<HostBuffer> readNpy(llvm::StringRef path, DType dtype,
                                   llvm::ArrayRef<int64_t> shape) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return fail(path, "cannot read: " + file.getError().message());
  llvm::StringRef data = (*file)->getBuffer();
  if (!data.starts_with("\x93NUMPY") || data.size() < 10)
    return fail(path, "not a NumPy .npy file (no \\x93NUMPY magic)");
  const unsigned major = static_cast<unsigned char>(data[6]);
  size_t headerSize = 0, start = 0;
  if (major == 1) {
    headerSize = static_cast<unsigned char>(data[8]) |
                 static_cast<unsigned char>(data[9]) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (data.size() < 12)
      return fail(path, "truncated header");
    uint32_t size;
    std::memcpy(&size, data.data() + 8, 4);
    headerSize = size;
    start = 12;
  } else {
    return fail(path, "unknown .npy version " + llvm::Twine(major));
  }
  if (data.size() < start + headerSize)
    return fail(path, "truncated header");
  llvm::StringRef header = data.substr(start, headerSize);
  llvm::StringRef payload = data.drop_front(start + headerSize);
  llvm::StringRef descr = field(header, "descr").trim("'\"");
  if (field(header, "fortran_order") != "False")
    return fail(path, "Fortran-order arrays are not supported (save with "
                      "numpy.ascontiguousarray)");
  llvm::SmallVector<int64_t> fileShape;
  llvm::SmallVector<llvm::StringRef> dims;
  field(header, "shape").split(dims, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef d : dims) {
    int64_t v;
    if (d.trim().getAsInteger(10, v) || v < 0)
      return fail(path, "cannot read the shape in the header");
    fileShape.push_back(v);
  }
  auto shapeText = [](llvm::ArrayRef<int64_t> s) {
    std::string text = "(";
    for (auto [i, d] : llvm::enumerate(s))
      text += (i ? ", " : "") + std::to_string(d);
    return text + ")";
  };
  if (llvm::ArrayRef<int64_t>(fileShape) != shape)
    return fail(path, "holds shape " + shapeText(fileShape) +
                          "; the input has shape " + shapeText(shape));
  // '<f4', '|b1', '<i8'...: byte order, kind, size.
  if (descr.size() < 3 || descr[0] == '>')
    return fail(path, "dtype '" + descr + "' is not little-endian");
  const char kind = descr[1];
  unsigned size = 0;
  if (descr.drop_front(2).getAsInteger(10, size))
    return fail(path, "cannot read dtype '" + descr + "'");
  const bool floatKind = kind == 'f';
  const bool intKind = kind == 'i' || kind == 'u' || kind == 'b';
  const bool fits = isFloat(dtype)
                        ? floatKind && (size == 2 || size == 4 || size == 8)
                    : dtype == DType::I1 ? kind == 'b' && size == 1
                                         : intKind && size <= 8;
  if (!fits)
    return fail(path, "dtype '" + descr + "' cannot feed a " +
                          dtypeName(dtype) + " input");
  HostBuffer buffer = makeHostBuffer(dtype, shape);
  const int64_t count = buffer.elements();
  if (static_cast<int64_t>(payload.size()) < count * size)
    return fail(path, "holds " + llvm::Twine(payload.size()) +
                          " bytes of data; the shape needs " +
                          llvm::Twine(count * size));
  for (int64_t i = 0; i < count; ++i) {
    const char *p = payload.data() + i * size;
    double v = 0;
    if (floatKind && size == 8) {
      std::memcpy(&v, p, 8);
    } else if (floatKind && size == 4) {
      float f;
      std::memcpy(&f, p, 4);
      v = f;
    } else if (floatKind) {
      uint16_t h;
      std::memcpy(&h, p, 2);
      v = decodeF16(h);
    } else if (kind == 'u' || kind == 'b') {
      uint64_t u = 0;
      std::memcpy(&u, p, size);
      v = static_cast<double>(u);
    } else {
      int64_t s = 0;
      std::memcpy(&s, p, size);
      // Sign-extend from `size` bytes.
      const int shift = 64 - 8 * size;
      v = static_cast<double>((s << shift) >> shift);
    }
    buffer.set(i, v);
  }
  return buffer;
}

llvm::Error writeNpy(llvm::StringRef path, const HostBuffer &buffer) {
  const char *descr = "<f4";
  int size = 4;
  switch (buffer.dtype) {
  case DType::F32:
  case DType::BF16:
    break;
  case DType::F16:
    descr = "<f2";
    size = 2;
    break;
  case DType::I32:
    descr = "<i4";
    break;
  case DType::I64:
    descr = "<i8";
    size = 8;
    break;
  case DType::I1:
    descr = "|b1";
    size = 1;
    break;
  }
  std::string shape;
  for (int64_t d : buffer.shape)
    shape += std::to_string(d) + ", ";
  if (buffer.shape.size() > 1)
    shape.erase(shape.size() - 2); // "(2, 3)", but "(5,)" for one axis.
  else if (!buffer.shape.empty())
    shape.pop_back();
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (" + shape + "), }";
  // The data starts on a 64-byte boundary; the header ends in a newline.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail(path, "cannot write: " + ec.message());
  os << "\x93NUMPY" << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>(header.size() >> 8) << header;
  for (int64_t i = 0; i < buffer.elements(); ++i) {
    const double v = buffer.get(i);
    char bytes[8];
    if (buffer.dtype == DType::F32 || buffer.dtype == DType::BF16) {
      float f = static_cast<float>(v);
      std::memcpy(bytes, &f, 4);
    } else if (buffer.dtype == DType::F16) {
      uint16_t h = encodeF16(static_cast<float>(v));
      std::memcpy(bytes, &h, 2);
    } else if (buffer.dtype == DType::I32) {
      int32_t x = static_cast<int32_t>(v);
      std::memcpy(bytes, &x, 4);
    } else if (buffer.dtype == DType::I64) {
      int64_t x = static_cast<int64_t>(v);
      std::memcpy(bytes, &x, 8);
    } else {
      bytes[0] = v != 0;
    }
    os.write(bytes, size);
  }
  os.close();
  if (os.has_error())
    return fail(path, "cannot write: " + os.error().message());
  return llvm::Error::success();
}

} // namespace opfuse
