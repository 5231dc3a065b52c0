// What the kernel tests share: output buffers of any I/O type read back through pecheck's own 16-bit types, rounding bounds per type, and position draws.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernels/storage.hpp"
#include "pe/half.hpp"

namespace pe::kernels::testing {

inline constexpr io_type all_io[] = {io_type::f32, io_type::bf16, io_type::f16};

inline const char* io_name(io_type io) { return io == io_type::f32 ? "f32" : io == io_type::bf16 ? "bf16" : "f16"; }

// An output array of `elements` values of io, every byte 0xff first: NaN in all three types,
// so an element no work item wrote stays NaN.
struct io_buffer {
  io_type io;
  std::vector<unsigned char> bytes;
  io_buffer(io_type type, std::int64_t elements) : io(type), bytes(static_cast<std::size_t>(elements) * io_bytes(type), 0xff) {}
  void* data() { return bytes.data(); }
  std::int64_t size() const { return static_cast<std::int64_t>(bytes.size() / io_bytes(io)); }
  // Element e, decoded by pecheck's types (not the kernels' conversions under test).
  double at(std::int64_t e) const {
    std::uint16_t h;
    if (io == io_type::f32) {
      float f;
      std::memcpy(&f, bytes.data() + 4 * e, 4);
      return f;
    }
    std::memcpy(&h, bytes.data() + 2 * e, 2);
    return io == io_type::bf16 ? static_cast<double>(pe::bf16::from_bits(h)) : static_cast<double>(pe::fp16::from_bits(h));
  }
  // Values v stored in io by pecheck's correctly rounding types (a kernel's input table).
  static io_buffer of(io_type type, const std::vector<double>& v) {
    io_buffer b(type, static_cast<std::int64_t>(v.size()));
    for (std::size_t e = 0; e < v.size(); ++e) {
      if (type == io_type::f32) {
        const auto f = static_cast<float>(v[e]);
        std::memcpy(b.bytes.data() + 4 * e, &f, 4);
      } else {
        const std::uint16_t h = type == io_type::bf16 ? pe::bf16(v[e]).bits() : pe::fp16(v[e]).bits();
        std::memcpy(b.bytes.data() + 2 * e, &h, 2);
      }
    }
    return b;
  }
};

// Half the spacing of io's values at |x| (subnormals' fixed spacing below the smallest normal).
inline double half_ulp(io_type io, double x) {
  const int emin = io == io_type::f16 ? -14 : -126, fraction_bits = io == io_type::f32 ? 23 : io == io_type::bf16 ? 7 : 10;
  const int e = x == 0 ? emin : std::max(std::ilogb(x), emin);
  return std::ldexp(1.0, e - fraction_bits - 1);
}

// The rounding a kernel's binary32 result takes on its way to io: half an ulp of binary32, and
// for f16 and bf16 half an ulp of that format more (rounded from the binary32 value).
inline double storage_rounding(io_type io, double x) {
  return half_ulp(io_type::f32, x) + (io == io_type::f32 ? 0 : half_ulp(io, x));
}

// Positions where arithmetic changes: 0, +-1, binary32's and binary64's integer limits, 2^31
// and both ends of int64.
inline std::vector<std::int64_t> edge_positions() {
  constexpr auto lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  return {0, 1, -1, 2, (std::int64_t{1} << 24) + 1, (std::int64_t{1} << 31) - 1, std::int64_t{1} << 31, (std::int64_t{1} << 53) + 1,
          -(std::int64_t{1} << 62), lo, lo + 1, hi, hi - 1};
}

// edge_positions, then `count` draws: a third below 2^12, a third below 2^40, a third over all of
// int64 (each of either sign).
inline std::vector<std::int64_t> drawn_positions(std::mt19937_64& rng, int count) {
  std::vector<std::int64_t> out = edge_positions();
  for (int k = 0; k < count; ++k) {
    const std::uint64_t r = rng();
    if (k % 3 == 2) out.push_back(static_cast<std::int64_t>(r));
    else {
      const auto magnitude = static_cast<std::int64_t>(r % (std::uint64_t{1} << (k % 3 == 0 ? 12 : 40)));
      out.push_back(rng() % 2 ? magnitude : -magnitude);
    }
  }
  return out;
}

}  // namespace pe::kernels::testing
