// Compiles every encoding with the archetype scalar: generic code must not silently compute in double.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "pe/encode.hpp"
#include "support/archetype.hpp"

namespace {

using pe_test::archetype;

// The archetype runs the generic (naive) path; at small positions it agrees with the exact
// binary64 reference to a few ulps of the naive angle's rounding.
void expect_close_to_double(const char* text) {
  const pe::spec s = pe::parse_spec(text);
  const std::vector<std::int64_t> pos{0, 1, 2, 7};
  const auto generic = pe::encode<archetype>(s, pos);
  const auto exact = pe::encode<double>(s, pos);
  ASSERT_EQ(generic.shape, exact.shape) << text;
  for (size_t k = 0; k < exact.data.size(); ++k) {
    // 1e-14: the naive angle 7 * pow(base, e) carries a few ulps of rounding (|angle| <= 7).
    EXPECT_NEAR(generic.data[k].value_for_test(), exact.data[k], 1e-14) << text << " element " << k;
  }
}

TEST(archetype, every_encoding_compiles_and_agrees) {
  expect_close_to_double("sinusoidal(dim=8)");
  expect_close_to_double("sinusoidal(dim=8, layout=concat)");
  expect_close_to_double("sinusoidal(dim=8, layout=fairseq, base=500)");
  expect_close_to_double("integer(dim=3)");
  expect_close_to_double("normalized(dim=3, length=8)");
  expect_close_to_double("binary(dim=5)");
  expect_close_to_double("learned(dim=3, max_len=8, seed=4)");
  expect_close_to_double("none(dim=2)");
}

}  // namespace
