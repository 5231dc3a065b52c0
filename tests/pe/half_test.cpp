// Tests for src/pe/half.hpp: bf16 and fp16 bit layouts, exhaustively, against independent oracles.
#include "pe/half.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace {

using pe::bf16;
using pe::fp16;

TEST(bf16, known_bit_patterns) {
  EXPECT_EQ(bf16(1.0).bits(), 0x3F80);
  EXPECT_EQ(bf16(-2.0).bits(), 0xC000);
  EXPECT_EQ(bf16(0.0).bits(), 0x0000);
  EXPECT_EQ(bf16(-0.0).bits(), 0x8000);
  EXPECT_EQ(bf16(std::numeric_limits<double>::infinity()).bits(), 0x7F80);
  EXPECT_EQ(bf16(-std::numeric_limits<double>::infinity()).bits(), 0xFF80);
  EXPECT_EQ(bf16(std::nan("")).bits(), 0x7FC0);
  EXPECT_EQ(bf16(256.0).bits(), 0x4380);
  EXPECT_EQ(bf16(257.0).bits(), 0x4380);  // 257 is stored as 256
  EXPECT_EQ(bf16(258.0).bits(), 0x4381);
  EXPECT_EQ(bf16(0x1p-133).bits(), 0x0001);  // smallest subnormal
  EXPECT_EQ(bf16(1e39).bits(), 0x7F80);      // overflow
}

TEST(fp16, known_bit_patterns) {
  EXPECT_EQ(fp16(1.0).bits(), 0x3C00);
  EXPECT_EQ(fp16(-2.0).bits(), 0xC000);
  EXPECT_EQ(fp16(65504.0).bits(), 0x7BFF);
  EXPECT_EQ(fp16(65520.0).bits(), 0x7C00);   // rounds to Inf
  EXPECT_EQ(fp16(0x1p-24).bits(), 0x0001);
  EXPECT_EQ(fp16(0x1p-14).bits(), 0x0400);   // smallest normal
  EXPECT_EQ(fp16(0x1.ff8p-15).bits(), 0x03FF);   // largest subnormal
  EXPECT_EQ(fp16(-0.0).bits(), 0x8000);
  EXPECT_EQ(fp16(std::nan("")).bits(), 0x7E00);
  EXPECT_EQ(fp16(0.1).bits(), 0x2E66);       // 0.0999755859375
}

TEST(small_float, every_pattern_round_trips) {
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const double vb = static_cast<double>(bf16::from_bits(bits));
    const double vh = static_cast<double>(fp16::from_bits(bits));
    if (std::isnan(vb)) {
      EXPECT_TRUE(std::isnan(static_cast<double>(bf16(vb))));
    } else {
      ASSERT_EQ(bf16(vb).bits(), bits) << "bf16 pattern " << b;
    }
    if (!std::isnan(vh)) {
      ASSERT_EQ(fp16(vh).bits(), bits) << "fp16 pattern " << b;
    }
  }
}

// An independent oracle for float -> bf16: the classic integer trick (add 0x7FFF plus the lsb
// of the kept part, then truncate), valid for every non-NaN float.
std::uint16_t bf16_by_integer_trick(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  return static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}

TEST(bf16, matches_the_integer_trick_on_random_floats) {
  std::mt19937 rng(20261129);  // seed printed in the test, so a failure replays
  for (int k = 0; k < 2'000'000; ++k) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (std::isnan(f)) continue;
    ASSERT_EQ(bf16(f).bits(), bf16_by_integer_trick(f)) << "float bits " << std::bit_cast<std::uint32_t>(f);
  }
}

#if defined(__FLT16_MAX__)
// The compiler's _Float16 conversion is a second, independent oracle for double -> fp16.
TEST(fp16, matches_the_compiler_float16_on_random_doubles) {
  std::mt19937_64 rng(20261129);
  for (int k = 0; k < 2'000'000; ++k) {
    // Exponents around f16's range, random significand bits.
    const double x = std::ldexp(static_cast<double>(rng() >> 11) * 0x1p-53 + 0.5, static_cast<int>(rng() % 50) - 30) *
                     ((rng() & 1) ? -1 : 1);
    const _Float16 h = static_cast<_Float16>(x);
    std::uint16_t want;
    std::memcpy(&want, &h, sizeof want);
    ASSERT_EQ(fp16(x).bits(), want) << "x = " << std::hexfloat << x;
  }
}
#endif

TEST(small_float, float_and_mpfr_constructors_round_the_same_way) {
  pe::mp_precision scope(128);
  EXPECT_EQ(bf16(1.00390625f).bits(), bf16(1.00390625).bits());
  EXPECT_EQ(bf16(pe::mp_real(257)).bits(), 0x4380);
  EXPECT_EQ(fp16(pe::mp_real("0.1")).bits(), 0x2E66);
}

}  // namespace
