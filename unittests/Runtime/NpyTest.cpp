//===- NpyTest.cpp - NumPy files in and out -------------------------------===//
//
// Every dtype written and read back; the header as numpy.save writes it
// (checked byte for byte for one array); and each refusal: another shape,
// a dtype of the wrong kind, Fortran order, a file that is not .npy.
//
//===----------------------------------------------------------------------===//

#include "opfuse/Runtime/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace opfuse;

namespace {

std::string temporary(const char *name) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createUniquePath(std::string("npytest-%%%%%%-") + name, path,
                                  /*MakeAbsolute=*/true);
  return path.str().str();
}

TEST(NpyTest, EveryDtypeRoundTrips) {
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32,
                      DType::I64, DType::I1}) {
    HostBuffer buffer = makeHostBuffer(dtype, {2, 3});
    for (int64_t i = 0; i < 6; ++i)
      buffer.set(i, dtype == DType::I1 ? i % 2 : (i - 2) * 1.5);
    std::string path = temporary("a.npy");
    ASSERT_FALSE(bool(writeNpy(path, buffer)));
    llvm::Expected<HostBuffer> back = readNpy(path, dtype, {2, 3});
    ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
    for (int64_t i = 0; i < 6; ++i)
      EXPECT_EQ(back->get(i), buffer.get(i)) << dtypeName(dtype).str() << i;
    llvm::sys::fs::remove(path);
  }
}

TEST(NpyTest, HeaderIsNumpys) {
  HostBuffer buffer = makeHostBuffer(DType::F32, {5});
  std::string path = temporary("h.npy");
  ASSERT_FALSE(bool(writeNpy(path, buffer)));
  auto file = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(bool(file));
  llvm::StringRef data = (*file)->getBuffer();
  // What numpy.save(f, numpy.zeros(5, numpy.float32)) writes.
  std::string header = "{'descr': '<f4', 'fortran_order': False, "
                       "'shape': (5,), }";
  header.append(128 - 10 - header.size() - 1, ' ');
  header += '\n';
  EXPECT_EQ(data.take_front(10),
            llvm::StringRef("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(data.substr(10, header.size()), header);
  EXPECT_EQ(data.size(), 128u + 20u);
  llvm::sys::fs::remove(path);
}

TEST(NpyTest, RefusalsSayWhat) {
  HostBuffer buffer = makeHostBuffer(DType::F32, {2, 3});
  std::string path = temporary("r.npy");
  ASSERT_FALSE(bool(writeNpy(path, buffer)));
  auto message = [&](DType dtype, std::vector<int64_t> shape) {
    llvm::Expected<HostBuffer> read = readNpy(path, dtype, shape);
    return read ? std::string("read") : llvm::toString(read.takeError());
  };
  EXPECT_NE(message(DType::F32, {3, 2})
                .find("holds shape (2, 3); the input has shape (3, 2)"),
            std::string::npos);
  EXPECT_NE(
      message(DType::I32, {2, 3}).find("dtype '<f4' cannot feed a i32 input"),
      std::string::npos);
  // f32 data feeds bf16 and f16 inputs (rounded).
  EXPECT_EQ(message(DType::BF16, {2, 3}), "read");
  llvm::sys::fs::remove(path);

  std::string fortran = temporary("f.npy");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(fortran, ec);
    std::string header = "{'descr': '<f4', 'fortran_order': True, 'shape': "
                         "(1,), }\n";
    os << llvm::StringRef("\x93NUMPY\x01\x00", 8)
       << static_cast<char>(header.size()) << '\0' << header << "abcd";
  }
  llvm::Expected<HostBuffer> f = readNpy(fortran, DType::F32, {1});
  ASSERT_FALSE(bool(f));
  EXPECT_NE(llvm::toString(f.takeError()).find("Fortran-order"),
            std::string::npos);
  llvm::sys::fs::remove(fortran);

  llvm::Expected<HostBuffer> text =
      readNpy(__FILE__, DType::F32, {1}); // This source file.
  ASSERT_FALSE(bool(text));
  EXPECT_NE(llvm::toString(text.takeError()).find("not a NumPy .npy file"),
            std::string::npos);
}

} // namespace
