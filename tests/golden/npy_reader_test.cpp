// Tests for read_npy: files as NumPy writes them read exactly, and every malformed header, dtype,
// order or length refused with one line naming what is wrong.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "golden/npy.hpp"
#include "golden/npy_reader.hpp"
#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe::golden {
namespace {

// A .npy file with `dict` as its header, as NumPy 1.x writes it (version 1.0, padded with spaces
// to a multiple of 64 bytes, ending in a newline), then `data`.
std::string npy_file(const std::string& dict, const std::string& data, char major = 1) {
  std::string header = dict;
  const std::size_t preamble = major == 1 ? 10 : 12;
  while ((preamble + header.size() + 1) % 64) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + major + '\0';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  if (major != 1) out += std::string(2, '\0');
  return out + header + data;
}

template <class V>
std::string bytes_of(const std::vector<V>& values) {
  std::string out(values.size() * sizeof(V), '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// The one-line error read_npy gives, or "" if it accepted the bytes.
std::string error_of(const std::string& bytes) {
  try {
    read_npy(bytes, "x.npy");
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    return e.what();
  }
  return "";
}

TEST(NpyReader, ReadsEachDtypeAsNumPyWritesIt) {
  const std::vector<double> f8{1.5, -0.1, 1e300, 5e-324, -0.0, 3};
  const auto a = read_npy(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", bytes_of(f8)), "x.npy");
  EXPECT_EQ(a.descr, "<f8");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  ASSERT_EQ(a.reals.size(), 6u);
  for (std::size_t k = 0; k < f8.size(); ++k) EXPECT_EQ(std::memcmp(&a.reals[k], &f8[k], 8), 0) << k;  // bit for bit, -0.0 too

  const auto f4 = read_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", bytes_of(std::vector<float>{0.1f, -2.0f, 3.0e38f})),
                           "x.npy");
  EXPECT_EQ(f4.reals, (std::vector<double>{static_cast<double>(0.1f), -2, static_cast<double>(3.0e38f)}));
  // f16 bits: 1.0 = 0x3c00, -2 = 0xc000, the smallest subnormal 2^-24 = 0x0001, 65504 = 0x7bff.
  const auto f2 = read_npy(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
                                    bytes_of(std::vector<std::uint16_t>{0x3c00, 0xc000, 0x0001, 0x7bff})),
                           "x.npy");
  EXPECT_EQ(f2.reals, (std::vector<double>{1, -2, 0x1p-24, 65504}));
  const auto i8 = read_npy(npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }",
                                    bytes_of(std::vector<std::int64_t>{INT64_MIN, 9007199254740993})),
                           "x.npy");
  EXPECT_EQ(i8.integers, (std::vector<std::int64_t>{INT64_MIN, 9007199254740993}));
  EXPECT_FALSE(i8.is_real());
  const auto i4 = read_npy(npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (1, 2), }", bytes_of(std::vector<std::int32_t>{-7, INT32_MAX})),
                           "x.npy");
  EXPECT_EQ(i4.integers, (std::vector<std::int64_t>{-7, INT32_MAX}));
}

TEST(NpyReader, ScalarsEmptyArraysVersionTwoAndKeyOrder) {
  const auto scalar = read_npy(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", bytes_of(std::vector<double>{2.5})), "x.npy");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.reals, std::vector<double>{2.5});
  const auto empty = read_npy(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4), }", ""), "x.npy");
  EXPECT_EQ(empty.shape, (std::vector<std::int64_t>{0, 4}));
  EXPECT_TRUE(empty.reals.empty());
  const auto v2 = read_npy(npy_file("{\"shape\":(2,),\"fortran_order\":False,\"descr\":\"<i8\"}", bytes_of(std::vector<std::int64_t>{1, 2}), 2),
                           "x.npy");
  EXPECT_EQ(v2.integers, (std::vector<std::int64_t>{1, 2}));
}

TEST(NpyReader, TheProjectsOwnWriterRoundTrips) {
  const std::vector<double> v{0.25, -1e-310, 123456789.125};
  const auto a = read_npy(npy_bytes(v, {3, 1}, false), "x.npy");
  EXPECT_EQ(a.reals, v);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{3, 1}));
}

TEST(NpyReader, RefusesWhatItDoesNotRead) {
  const std::string d6 = bytes_of(std::vector<double>(6, 1.0));
  const auto dict = [](const std::string& descr, const std::string& order, const std::string& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': " + order + ", 'shape': " + shape + ", }";
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"NUMPY" + d6, "not a .npy file (it does not start with \\x93NUMPY)"},
      {std::string("\x93NUMPY\x04\x00", 8) + d6, ".npy format version 4.0, not 1.0, 2.0 or 3.0"},
      {npy_file(dict(">f8", "False", "(2, 3)"), d6), "dtype '>f8' is not read"},
      {npy_file(dict("<c16", "False", "(3,)"), d6), "dtype '<c16' is not read"},
      {npy_file(dict("|O", "False", "(6,)"), d6), "dtype '|O' is not read"},
      {npy_file(dict("<f8", "True", "(2, 3)"), d6), "a Fortran-order .npy array: save it in C order"},
      {npy_file(dict("<f8", "False", "(2, 4)"), d6), ".npy shape (2, 4) of <f8 holds 64 bytes of data, the file has 48"},
      {npy_file(dict("<f8", "False", "(5,)"), d6), ".npy shape (5) of <f8 holds 40 bytes of data, the file has 48"},
      {npy_file("{'descr': '<f8', 'shape': (6,), }", d6), ".npy header lacks fortran_order"},
      {npy_file("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", d6), "the key 'descr' twice"},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'x': 1}", d6), "unknown key 'x'"},
      {npy_file(dict("<f8", "False", "(6, -1)"), d6), "expected a dimension (a non-negative integer)"},
      {npy_file(dict("<f8", "False", "(9223372036854775808,)"), d6), "a dimension past 2^63 - 1"},
      {npy_file(dict("<f8", "False", "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6)"), d6), "more than 32 dimensions"},
      {npy_file(dict("<f8", "False", "(6,)") + " trailing", d6), "more after the dict than spaces and its newline"},
      {npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }\x01", d6), "the byte 0x01, not printable ASCII"},
      {npy_file(dict("<f8", "False", "(6,)"), d6).substr(0, 40), "the .npy file ends inside its 118-byte header"},
      // The element count is checked before anything is allocated: 2^62 values in a 200-byte file.
      {npy_file(dict("<f8", "False", "(4611686018427387904,)"), d6), "over the limit input_values="},
      {npy_file(dict("<f8", "False", "(4294967296, 4294967296, 4294967296)"), d6), "holds: 18446744073709551615, over the limit input_values="},
  };
  for (const auto& [bytes, message] : cases) {
    const std::string error = error_of(bytes);
    EXPECT_NE(error.find(message), std::string::npos) << "expected '" << message << "' in: " << error;
    EXPECT_EQ(error.rfind("x.npy", 0), 0u) << error;
  }
}

}  // namespace
}  // namespace pe::golden
