// NumPy .npy format 1.0: magic, a Python-dict header padded to 64 bytes, then the raw data
// (https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html).
#include "golden/npy.hpp"

#include <cstring>

#include <fmt/format.h>

namespace pe::golden {
namespace {

template <class V>
void append_le(std::string& out, V v) {  // x86-64 and every target here are little-endian
  char bytes[sizeof(V)];
  std::memcpy(bytes, &v, sizeof(V));
  out.append(bytes, sizeof(V));
}

}  // namespace

std::string npy_header(const char* descr, const std::vector<std::int64_t>& shape) {
  std::string dims;
  for (const auto d : shape) dims += fmt::format("{}, ", d);
  if (shape.size() > 1) dims.resize(dims.size() - 2);      // (2, 3)
  else if (shape.size() == 1) dims.resize(dims.size() - 1);  // (5,)
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", descr, dims);
  const size_t preamble = 10;  // magic (6) + version (2) + header length (2)
  const size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  dict.append(total - preamble - dict.size() - 1, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

void append_npy_values(std::string& out, std::span<const double> values, bool as_float32) {
  for (const double v : values) {
    if (as_float32) append_le(out, static_cast<float>(v));
    else append_le(out, v);
  }
}

std::string npy_bytes(const std::vector<double>& values, const std::vector<std::int64_t>& shape, bool as_float32) {
  std::string out = npy_header(as_float32 ? "<f4" : "<f8", shape);
  append_npy_values(out, values, as_float32);
  return out;
}

std::string npy_bytes(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& shape) {
  std::string out = npy_header("<i8", shape);
  for (const auto v : values) append_le(out, v);
  return out;
}

}  // namespace pe::golden
