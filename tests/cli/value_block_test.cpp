// Tests for src/cli/value_block: binary64 text is pe::to_decimal's, byte for byte, for every kind of double.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "cli/value_block.hpp"
#include "pe/scalar.hpp"

namespace {

std::string text_of(double v) {
  pecheck::value_block b{{v}, {}};
  std::string out;
  b.append_text(out, 0);
  return out;
}

// Random bit patterns cover every exponent (subnormals, huge, tiny) and sign; the list adds the
// edges: zeros, the extremes, infinities and values whose 17th digit is a rounding tie candidate.
TEST(value_block, binary64_text_is_to_decimal) {
  std::mt19937_64 rng(14);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::bit_cast<double>(rng());
    if (std::isnan(v)) continue;
    ASSERT_EQ(text_of(v), pe::to_decimal(v)) << std::hexfloat << v;
  }
  for (const double v : {0.0, -0.0, 1.0, -1.0, 0.1, 1e23, 5e-324, -5e-324, 2.2250738585072014e-308,
                         std::numeric_limits<double>::max(), std::numeric_limits<double>::lowest(),
                         std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                         9007199254740993.0, 0.54030230586813977, 123456789012345678.0}) {
    EXPECT_EQ(text_of(v), pe::to_decimal(v)) << std::hexfloat << v;
  }
}

TEST(value_block, decimals_print_as_given) {
  pecheck::value_block b{{}, {"0.84147098480789650665", "-1"}};
  std::string out;
  b.append_text(out, 1);
  b.append_text(out, 0);
  EXPECT_EQ(out, "-10.84147098480789650665");
  EXPECT_EQ(b.size(), 2u);
}

}  // namespace
