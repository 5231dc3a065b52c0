// Tests for src/pe/ulp.hpp: ulp distance within a dtype, error in ulps against MPFR, relative/absolute error.
#include "pe/ulp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace {

using pe::ulp_distance;

TEST(ulp_distance, neighbours_are_one_apart) {
  EXPECT_EQ(ulp_distance(1.0, std::nextafter(1.0, 2.0)), 1u);
  EXPECT_EQ(ulp_distance(1.0, std::nextafter(1.0, 0.0)), 1u);
  EXPECT_EQ(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(ulp_distance(1.0, 1.0 + 4 * 0x1p-52), 4u);
  // Across a binade: below 1 the spacing halves.
  EXPECT_EQ(ulp_distance(1.0 - 0x1p-53, 1.0 + 0x1p-52), 2u);
}

TEST(ulp_distance, across_zero_and_signed_zeros) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(ulp_distance(0.0, -0.0), 0u);
  EXPECT_EQ(ulp_distance(-tiny, tiny), 2u);
  EXPECT_EQ(ulp_distance(-0.0, tiny), 1u);
}

TEST(ulp_distance, sixteen_bit_types) {
  EXPECT_EQ(ulp_distance(pe::bf16(256.0), pe::bf16(258.0)), 1u);
  EXPECT_EQ(ulp_distance(pe::bf16(1.0), pe::bf16(-1.0)), 2u * 0x3F80);
  EXPECT_EQ(ulp_distance(pe::fp16(65504.0), pe::fp16(65520.0)), 1u);  // the largest finite and Inf
  EXPECT_EQ(ulp_distance(pe::fp16(0x1p-24), pe::fp16(-0x1p-24)), 2u);
}

TEST(ulp_distance, nan_is_infinitely_far) {
  EXPECT_EQ(ulp_distance(std::nan(""), 1.0), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(ulp_distance(pe::bf16(std::nan("")), pe::bf16(1.0)), std::numeric_limits<std::uint64_t>::max());
}

TEST(error_in_ulps, measured_against_the_exact_value) {
  pe::mp_precision scope(256);
  const pe::mp_real third = pe::mp_real(1) / 3;
  // 1/3 in binary64 lies 1/3 ulp below 1/3; the next double down lies 4/3 ulp below.
  const double nearest = 1.0 / 3.0;
  const double e0 = pe::error_in_ulps(nearest, third, pe::binary64);
  EXPECT_LE(e0, 0.5);
  EXPECT_GT(e0, 0.3);  // 1/3 is not representable: the error is 1/3 ulp
  const double e1 = pe::error_in_ulps(std::nextafter(nearest, 0.0), third, pe::binary64);
  EXPECT_GT(e1, 1.0);
  EXPECT_LE(e1, 1.5);
  EXPECT_EQ(pe::error_in_ulps(0.0, pe::mp_real(0), pe::binary16), 0.0);
  EXPECT_EQ(pe::error_in_ulps(std::nan(""), third, pe::binary64), std::numeric_limits<double>::infinity());
  EXPECT_EQ(pe::error_in_ulps(std::numeric_limits<double>::infinity(), third, pe::binary64),
            std::numeric_limits<double>::infinity());
  // 257 stored as bf16 256: one unit of bf16's spacing 2 is half an ulp.
  EXPECT_EQ(pe::error_in_ulps(256.0, pe::mp_real(257), pe::bfloat16), 0.5);
}

TEST(relative_error, and_absolute_error) {
  EXPECT_DOUBLE_EQ(pe::relative_error(1.5, 1.0), 0.5);
  EXPECT_DOUBLE_EQ(pe::relative_error(-3.0, -2.0), 0.5);
  EXPECT_EQ(pe::relative_error(0.0, 0.0), 0.0);
  EXPECT_EQ(pe::relative_error(1e-300, 0.0), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(pe::absolute_error(1.25, 1.0), 0.25);
  pe::mp_precision scope(128);
  EXPECT_EQ(pe::relative_error(pe::mp_real(3), pe::mp_real(2)), pe::mp_real(0.5));
}

}  // namespace
