// Tests of src/audit/non_finite.hpp: NaN outputs named by the pattern of where they fall.
#include "audit/non_finite.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pe::audit {
namespace {

// Tokens at `positions`, those at or past `from` (or at position 0, when zero_only) non-finite.
std::vector<token_finiteness> tokens(const std::vector<std::int64_t>& positions, std::int64_t from, bool zero_only = false) {
  std::vector<token_finiteness> out;
  for (const auto p : positions) out.push_back({p, zero_only ? p != 0 : p < from});
  return out;
}
const std::vector<std::int64_t> calls{0, 1, 2, 7, 1000, 40000, 65535, 65536, 131071, 1048576, 8000000};

TEST(non_finite_words, none_says_nothing) { EXPECT_EQ(non_finite_words(tokens(calls, 1 << 30), 1, 0, 100), ""); }

TEST(non_finite_words, position_0_only) {
  EXPECT_EQ(non_finite_words(tokens(calls, 0, true), 1, 64, 2000), "NaN or infinite outputs at position 0 only");
}

// f16 overflows at 65520: angles p * w where w = 1 first, then where the largest frequency is 1/8
// the positions themselves (cast to f16 before the product) overflow first.
TEST(non_finite_words, an_f16_overflow_from_its_threshold_on) {
  EXPECT_EQ(non_finite_words(tokens(calls, 65535), 1, 640, 2000),
            "angles p*w overflow in f16 (past 65504): NaN or infinite outputs from position 65535 on");
  EXPECT_EQ(non_finite_words(tokens(calls, 65535), 0.125, 640, 2000),
            "positions overflow in f16 (past 65504): NaN or infinite outputs from position 65535 on");
  EXPECT_EQ(non_finite_words(tokens(calls, 1048576), 0.125, 640, 2000),
            "angles p*w overflow in f16 (past 65504): NaN or infinite outputs from position 1048576 on");
}

// A threshold that no format explains, or scattered NaN: how many, and where.
TEST(non_finite_words, anything_else_is_counted_with_its_positions) {
  EXPECT_EQ(non_finite_words(tokens(calls, 1000), 1, 700, 2000), "700 of 2000 output elements are NaN or infinite, at positions 1000 to 8000000");
  std::vector<token_finiteness> one{{0, true}, {7, false}, {8, true}};
  EXPECT_EQ(non_finite_words(one, 1, 1, 3072), "1 of 3072 output elements are NaN or infinite, at position 7 only");
  EXPECT_EQ(non_finite_words({}, 1, 5, 10), "5 of 10 output elements are NaN or infinite");
}

}  // namespace
}  // namespace pe::audit
