// Tests for src/kernels/half_bits.hpp: the kernels' 16-bit conversions against pecheck's own bf16 and fp16 (correct rounding from MPFR).
#include "kernels/half_bits.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "pe/half.hpp"

namespace {

using pe::kernels::bits_of;
using pe::kernels::float_of;

// Every one of the 65,536 words widens to the value pecheck's types decode (NaNs stay NaN).
TEST(half_bits, widening_is_exact_for_every_word) {
  for (std::uint32_t w = 0; w <= 0xffffu; ++w) {
    const auto word = static_cast<std::uint16_t>(w);
    const double want_f16 = static_cast<double>(pe::fp16::from_bits(word)), want_bf16 = static_cast<double>(pe::bf16::from_bits(word));
    const float f16 = pe::kernels::f16_to_float(word), bf16 = pe::kernels::bf16_to_float(word);
    if (std::isnan(want_f16)) EXPECT_TRUE(std::isnan(f16)) << w;
    else EXPECT_EQ(static_cast<double>(f16), want_f16) << "f16 word " << w;
    if (std::isnan(want_bf16)) EXPECT_TRUE(std::isnan(bf16)) << w;
    else EXPECT_EQ(static_cast<double>(bf16), want_bf16) << "bf16 word " << w;
  }
}

// Narrowing rounds to nearest, ties to even, as pecheck's types do: on every word's value, its
// neighbouring floats, the midpoints between words (ties) and a float just either side of each
// midpoint, plus random floats of every exponent.
TEST(half_bits, narrowing_rounds_to_nearest_even) {
  int checked = 0;
  const auto check = [&checked](float f) {
    if (std::isnan(f)) return;
    EXPECT_EQ(pe::kernels::float_to_f16(f), pe::fp16(f).bits()) << "f16 of " << f;
    EXPECT_EQ(pe::kernels::float_to_bf16(f), pe::bf16(f).bits()) << "bf16 of " << f;
    ++checked;
  };
  for (std::uint32_t w = 0; w < 0xffffu; ++w) {
    for (const double v : {static_cast<double>(pe::fp16::from_bits(static_cast<std::uint16_t>(w))), static_cast<double>(pe::bf16::from_bits(static_cast<std::uint16_t>(w)))}) {
      if (std::isnan(v) || std::isinf(v)) continue;
      const auto f = static_cast<float>(v);
      check(f), check(std::nextafter(f, INFINITY)), check(std::nextafter(f, -INFINITY));
    }
    // The midpoint between word w and w + 1 of the same sign (a float: at most 12 or 9 bits).
    for (const bool bf : {false, true}) {
      const double lo = bf ? static_cast<double>(pe::bf16::from_bits(static_cast<std::uint16_t>(w))) : static_cast<double>(pe::fp16::from_bits(static_cast<std::uint16_t>(w)));
      const double hi = bf ? static_cast<double>(pe::bf16::from_bits(static_cast<std::uint16_t>(w + 1))) : static_cast<double>(pe::fp16::from_bits(static_cast<std::uint16_t>(w + 1)));
      if (std::isnan(lo) || std::isnan(hi) || std::isinf(lo) || std::isinf(hi) || (w & 0x7fffu) == 0x7fffu) continue;
      const auto mid = static_cast<float>((lo + hi) / 2);
      check(mid), check(std::nextafter(mid, INFINITY)), check(std::nextafter(mid, -INFINITY));
    }
  }
  std::mt19937 rng(20261202);
  for (int i = 0; i < 200000; ++i) check(float_of(rng()));
  for (const float f : {0.0f, -0.0f, INFINITY, -INFINITY, 65504.0f, 65519.996f, 65520.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 3.4e38f}) check(f);
  EXPECT_GT(checked, 500000);
}

TEST(half_bits, nan_stays_nan) {
  const float nan = float_of(0x7fc00001u);
  EXPECT_TRUE(std::isnan(pe::kernels::f16_to_float(pe::kernels::float_to_f16(nan))));
  EXPECT_TRUE(std::isnan(pe::kernels::bf16_to_float(pe::kernels::float_to_bf16(nan))));
  // A signalling NaN whose payload sits in the low 16 bits must not truncate to Inf in bf16.
  EXPECT_TRUE(std::isnan(pe::kernels::bf16_to_float(pe::kernels::float_to_bf16(float_of(0x7f800001u)))));
  EXPECT_EQ(bits_of(pe::kernels::bf16_to_float(0x3f80)), 0x3f800000u);
}

}  // namespace
