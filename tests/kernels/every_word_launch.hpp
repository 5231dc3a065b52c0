// A rotate launch at position 0 whose inputs are every 16-bit word, and the words it must write: the kernels' f16 and bf16 loads and stores checked on every value, on the host emulation and on the GPU alike.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/host_tables.hpp"
#include "kernels/rotate_kernel.hpp"
#include "pe/half.hpp"
#include "pe/spec.hpp"

namespace pe::kernels::testing {

// rope(dim=64) with YaRN's attention factor A = 1 + 0.1 ln 8 (not a power of two, so A x needs
// rounding), in the accurate mode, at position 0 (sin 0 and cos 1 exactly): y_a = A (x_a - 0 x_b)
// and y_b = A (0 x_a + x_b), each in binary64, rounded to binary32 and then to the 16-bit type.
// x holds each of the 65,536 words once (1,024 tokens of one head), so every load, and a store
// of every kind of value (subnormal, normal, overflowing to Inf, Inf, NaN, both zeros), is met.
struct every_word_launch {
  static constexpr const char* spec = "rope(dim=64, scaling=yarn(factor=8, original_max=2048))";
  static constexpr std::int64_t tokens = 1024, heads = 1, dim = 64;
  io_type io;
  std::vector<std::uint16_t> x, y;
  std::vector<std::int64_t> pos = std::vector<std::int64_t>(tokens, 0);
  rotate_tables tables;
  rotate_args args{};

  explicit every_word_launch(io_type type) : io(type), tables(rotate_tables::of(pe::parse_spec(spec), pos)) {
    for (std::uint32_t w = 0; w <= 0xffffu; ++w) x.push_back(static_cast<std::uint16_t>(w));
    y.assign(x.size(), 0);
    args = {x.data(), y.data(), pos.data(), tables.inv_freq.data(), tables.turns.data(), tables.factor, tokens, heads, dim, dim, true, io,
            angle_mode::accurate};
  }

  double value_of(std::uint16_t word) const {
    return io == io_type::f16 ? static_cast<double>(pe::fp16::from_bits(word)) : static_cast<double>(pe::bf16::from_bits(word));
  }
  std::uint16_t word_of(float v) const { return io == io_type::f16 ? pe::fp16(v).bits() : pe::bf16(v).bits(); }

  // Checks `out` (y of this launch on some backend) word by word; a NaN matches any NaN.
  void check(const std::vector<std::uint16_t>& out, const char* who) const {
    const char* type = io == io_type::f16 ? "f16" : "bf16";
    int wrong = 0;
    for (std::size_t e = 0; e < x.size() && wrong < 5; ++e) {
      const std::size_t d = e % dim, row = e - d, half = dim / 2;
      const double xa = value_of(x[row + d % half]), xb = value_of(x[row + d % half + half]);
      const double exact = d < half ? tables.factor * (xa * 1.0 - xb * 0.0) : tables.factor * (xa * 0.0 + xb * 1.0);
      const std::uint16_t want = word_of(static_cast<float>(exact));
      const bool both_nan = std::isnan(value_of(want)) && std::isnan(value_of(out[e]));
      if (out[e] != want && !both_nan) {
        ++wrong;
        ADD_FAILURE() << who << ", " << type << ": element " << e << " (x word " << x[e] << ") is word " << out[e] << ", not " << want;
      }
    }
  }
};

}  // namespace pe::kernels::testing
