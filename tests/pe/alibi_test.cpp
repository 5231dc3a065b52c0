// Tests for src/pe/schemes/alibi.hpp: slopes as exact powers of two for 8, 12, 16 and 20 heads; the bias.
#include "pe/schemes/alibi.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pe/ops.hpp"

namespace {

std::vector<double> slopes(int heads) { return pe::alibi_slopes<double>(pe::parse_spec(fmt::format("alibi(heads={})", heads))); }

TEST(alibi, slopes_for_a_power_of_two_are_2_to_the_minus_8h_over_n) {
  EXPECT_EQ(slopes(8), (std::vector<double>{0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625}));
  const auto s16 = slopes(16);
  ASSERT_EQ(s16.size(), 16u);
  for (int h = 0; h < 16; ++h) EXPECT_EQ(s16[h], std::exp2(-0.5 * (h + 1))) << h;  // 2^(-8(h+1)/16)
}

TEST(alibi, slopes_for_12_and_20_heads_interleave) {
  // 12 heads: the 8 slopes of 8 heads, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5 (every other slope of 16 heads).
  std::vector<double> want12;
  for (int h = 1; h <= 8; ++h) want12.push_back(std::exp2(-h));
  // sqrt(2)/2 correctly rounded is 0x1.6a09e667f3bcdp-1; the others are it times powers of two.
  for (double v : {0x1.6a09e667f3bcdp-1, 0x1.6a09e667f3bcdp-2, 0x1.6a09e667f3bcdp-3, 0x1.6a09e667f3bcdp-4}) want12.push_back(v);
  EXPECT_EQ(slopes(12), want12);
  // 20 heads: 2^(-h/2) for h = 1..16, then 2^-0.25, 2^-0.75, 2^-1.25, 2^-1.75 from 32 heads.
  std::vector<double> want20;
  for (int h = 1; h <= 16; ++h) want20.push_back(std::exp2(-0.5 * h));
  for (double e : {-0.25, -0.75, -1.25, -1.75}) want20.push_back(std::exp2(e));
  const auto got20 = slopes(20);
  ASSERT_EQ(got20.size(), 20u);
  // std::exp2 is exact at integer exponents and within 1 ulp elsewhere; the reference rounds once.
  for (int h = 0; h < 20; ++h) EXPECT_NEAR(got20[h], want20[h], std::ldexp(want20[h], -52)) << h;
  // Exact exponents as rationals: 12 heads' 9th slope is 2^(-4/8).
  EXPECT_EQ(pe::alibi_slope_exponents(12)[8], (std::pair<std::int64_t, std::int64_t>{-4, 8}));
}

TEST(alibi, bias_is_slope_times_key_minus_query) {
  const pe::spec causal = pe::parse_spec("alibi(heads=2)");
  const std::vector<std::int64_t> q{0, 3}, k{0, 1, 3};
  const auto b = pe::alibi_bias<double>(causal, q, k);
  EXPECT_EQ(b.shape, (std::vector<std::int64_t>{2, 2, 3}));
  // Head 0 slope 2^-4 (2 heads: 2^(-8/2)); query 3: keys 0, 1, 3 at -3, -2, 0 slopes.
  EXPECT_EQ(b.data[3], -3 * 0.0625);
  EXPECT_EQ(b.data[4], -2 * 0.0625);
  EXPECT_EQ(b.data[5], 0.0);
  EXPECT_FALSE(std::signbit(b.data[5]));  // +0, not -0
  EXPECT_EQ(b.data[1], 0.0625);           // a key after the query (the causal mask removes it)
  const auto sym = pe::alibi_bias<double>(pe::parse_spec("alibi(heads=2, causal=false)"), q, k);
  EXPECT_EQ(sym.data[1], -0.0625);
  EXPECT_EQ(sym.data[3], -3 * 0.0625);
}

// BLOOM adds slope * j (key position) instead: per query row it differs by a constant, so
// softmax over the row (what attention sees) is identical.
TEST(alibi, key_position_form_gives_the_same_softmax_rows) {
  const pe::spec s = pe::parse_spec("alibi(heads=4)");
  const std::vector<std::int64_t> q{5, 9}, k{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  const auto b = pe::alibi_bias<double>(s, q, k);
  const auto sl = pe::alibi_slopes<double>(s);
  for (int h = 0; h < 4; ++h)
    for (size_t i = 0; i < q.size(); ++i) {
      double z1 = 0, z2 = 0;
      for (size_t j = 0; j <= static_cast<size_t>(q[i]); ++j) {
        z1 += std::exp(b.data[(h * 2 + i) * 10 + j]);
        z2 += std::exp(sl[h] * static_cast<double>(k[j]));
      }
      for (size_t j = 0; j <= static_cast<size_t>(q[i]); ++j) {
        // Each probability is one libm exp (1 ulp) over a sum of at most 10 (10 eps): 4e-15 covers both sides.
        EXPECT_NEAR(std::exp(b.data[(h * 2 + i) * 10 + j]) / z1, std::exp(sl[h] * static_cast<double>(k[j])) / z2, 4e-15);
      }
    }
}

}  // namespace
