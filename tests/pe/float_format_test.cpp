// Tests for src/pe/float_format.hpp: one correct rounding into f64/f32/bf16/f16, from double and from MPFR.
#include "pe/float_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using pe::binary16;
using pe::binary32;
using pe::binary64;
using pe::bfloat16;
using pe::mp_real;
using pe::round_to_format;

constexpr double inf = std::numeric_limits<double>::infinity();

TEST(round_to_format, ties_go_to_even) {
  // bf16 keeps 8 significant bits: spacing 2^-7 just above 1.
  EXPECT_EQ(round_to_format(1 + 0x1p-8, bfloat16), 1.0);                     // tie, 1 is even
  EXPECT_EQ(round_to_format(1 + 3 * 0x1p-8, bfloat16), 1 + 0x1p-6);         // tie, rounds up to even
  EXPECT_EQ(round_to_format(1 + 0x1p-8 + 0x1p-30, bfloat16), 1 + 0x1p-7);   // just above the tie
  EXPECT_EQ(round_to_format(-(1 + 0x1p-8 + 0x1p-30), bfloat16), -(1 + 0x1p-7));
}

TEST(round_to_format, from_double_is_one_rounding_not_two) {
  // Through float first, 1 + 2^-8 + 2^-30 becomes 1 + 2^-8 (a tie) and then 1: wrong.
  const double x = 1 + 0x1p-8 + 0x1p-30;
  EXPECT_EQ(round_to_format(static_cast<double>(static_cast<float>(x)), bfloat16), 1.0);
  EXPECT_EQ(round_to_format(x, bfloat16), 1 + 0x1p-7);
}

TEST(round_to_format, integers_past_the_significand_merge) {
  // bf16 counts integers exactly only to 256: 257 is a tie between 256 and 258 -> 256.
  EXPECT_EQ(round_to_format(256.0, bfloat16), 256.0);
  EXPECT_EQ(round_to_format(257.0, bfloat16), 256.0);
  EXPECT_EQ(round_to_format(259.0, bfloat16), 260.0);
  // f16 up to 2048, f32 up to 2^24.
  EXPECT_EQ(round_to_format(2049.0, binary16), 2048.0);
  EXPECT_EQ(round_to_format(0x1p24 + 1, binary32), 0x1p24);
}

TEST(round_to_format, overflow_follows_round_to_nearest) {
  // f16: largest finite 65504, next would be 65536; the midpoint 65520 rounds to even = Inf.
  EXPECT_EQ(round_to_format(65504.0, binary16), 65504.0);
  EXPECT_EQ(round_to_format(65519.99, binary16), 65504.0);
  EXPECT_EQ(round_to_format(65520.0, binary16), inf);
  EXPECT_EQ(round_to_format(-1e6, binary16), -inf);
  // bf16 and f32 share the exponent range: 3.4028234663852886e38 is f32's largest.
  EXPECT_EQ(round_to_format(3.4028234663852886e38, binary32), 3.4028234663852886e38);
  EXPECT_EQ(round_to_format(3.4028235677973366e38, binary32), inf);  // the f32 overflow midpoint
  EXPECT_EQ(round_to_format(3.3895313892515355e38, bfloat16), 3.3895313892515355e38);  // bf16 max
  EXPECT_EQ(round_to_format(1e39, bfloat16), inf);
}

TEST(round_to_format, subnormals_zeros_and_specials) {
  // f16 subnormal spacing is 2^-24.
  EXPECT_EQ(round_to_format(0x1p-24, binary16), 0x1p-24);
  EXPECT_EQ(round_to_format(0x1p-25, binary16), 0.0);                   // tie with 0: even is 0
  EXPECT_EQ(round_to_format(0x1p-25 + 0x1p-40, binary16), 0x1p-24);
  EXPECT_EQ(round_to_format(3 * 0x1p-25, binary16), 2 * 0x1p-24);       // tie between 1 and 2 units: 2
  EXPECT_EQ(round_to_format(0x1.ff8p-15, binary16), 0x1.ff8p-15);       // largest f16 subnormal
  EXPECT_EQ(round_to_format(0x1.ffcp-15, binary16), 0x1p-14);           // tie with the smallest normal: even
  // bf16 subnormals: spacing 2^-133.
  EXPECT_EQ(round_to_format(0x1p-133, bfloat16), 0x1p-133);
  EXPECT_EQ(round_to_format(0x1.8p-133, bfloat16), 0x1p-132);
  EXPECT_TRUE(std::signbit(round_to_format(-0x1p-30, binary16)));      // underflows to -0
  EXPECT_EQ(round_to_format(-0x1p-30, binary16), 0.0);
  EXPECT_TRUE(std::signbit(round_to_format(-0.0, bfloat16)));
  EXPECT_EQ(round_to_format(inf, binary16), inf);
  EXPECT_TRUE(std::isnan(round_to_format(std::nan(""), bfloat16)));
  // binary64 itself: identity on doubles, including subnormals.
  EXPECT_EQ(round_to_format(4.9e-324, binary64), 4.9e-324);
  EXPECT_EQ(round_to_format(0.1, binary64), 0.1);
}

TEST(round_to_format, from_mpfr_rounds_once) {
  pe::mp_precision scope(256);
  // 1 + 2^-8 + 2^-100: as a double it loses 2^-100 and becomes a bf16 tie (-> 1); directly it is above the tie.
  mp_real x = 1 + ldexp(mp_real(1), -8) + ldexp(mp_real(1), -100);
  EXPECT_EQ(round_to_format(static_cast<double>(x), bfloat16), 1.0);
  EXPECT_EQ(round_to_format(x, bfloat16), 1 + 0x1p-7);
  // To binary64: 1 + 2^-53 + 2^-200 rounds up, 1 + 2^-53 alone ties to even (down).
  EXPECT_EQ(round_to_format(mp_real(1) + ldexp(mp_real(1), -53) + ldexp(mp_real(1), -200), binary64), 1 + 0x1p-52);
  EXPECT_EQ(round_to_format(mp_real(1) + ldexp(mp_real(1), -53), binary64), 1.0);
  // Binary64 subnormals and overflow from MPFR.
  EXPECT_EQ(round_to_format(ldexp(mp_real(3), -1076), binary64), 4.9406564584124654e-324);  // 0.75 units -> 1
  EXPECT_EQ(round_to_format(ldexp(mp_real(1), -1075), binary64), 0.0);                     // tie with 0
  EXPECT_EQ(round_to_format(ldexp(mp_real(1), 1024), binary64), inf);
  EXPECT_EQ(round_to_format(-ldexp(mp_real(1), 5000), binary16), -inf);
  EXPECT_EQ(round_to_format(mp_real(65520), binary16), inf);
  EXPECT_EQ(round_to_format(mp_real(257), bfloat16), 256.0);
  // NaN keeps its sign, as from double.
  EXPECT_TRUE(std::signbit(round_to_format(-mp_real(std::nan("")), binary16)));
  EXPECT_TRUE(std::isnan(round_to_format(-mp_real(std::nan("")), binary16)));
}

TEST(ulp_in_format, spacing_at_a_value) {
  EXPECT_EQ(pe::ulp_in_format(1.0, binary64), 0x1p-52);
  EXPECT_EQ(pe::ulp_in_format(1.5, bfloat16), 0x1p-7);
  EXPECT_EQ(pe::ulp_in_format(256.0, bfloat16), 2.0);
  EXPECT_EQ(pe::ulp_in_format(0.0, binary16), 0x1p-24);
  EXPECT_EQ(pe::ulp_in_format(0x1p-20, binary16), 0x1p-24);  // subnormal range: fixed spacing
  pe::mp_precision scope(128);
  EXPECT_EQ(static_cast<double>(pe::ulp_in_format(mp_real(3), binary32)), 0x1p-22);
}

}  // namespace
