// Tests of src/audit/position_set.hpp: ranges, log-spaced sets, 2^k numbers, shards, and the errors for bad text.
#include "audit/position_set.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "pe/error.hpp"

namespace pe::audit {
namespace {

TEST(position_set, a_range_holds_every_position_from_a_below_b) {
  const auto s = position_set::parse("3:2^4");
  EXPECT_EQ(s.text(), "3:16");
  EXPECT_EQ(s.size(), 13);
  EXPECT_EQ(s.at(0), 3);
  EXPECT_EQ(s.last(), 15);
}

TEST(position_set, a_log_set_runs_from_a_to_b_increasing_without_repeats) {
  const auto s = position_set::parse("log:0:2^31:64");
  EXPECT_EQ(s.at(0), 0);
  EXPECT_EQ(s.at(1), 1);
  EXPECT_EQ(s.last(), std::int64_t{1} << 31);
  EXPECT_EQ(s.size(), 63);  // 2^0.5 rounds to 1 again: dropped
  for (std::int64_t i = 1; i < s.size(); ++i) EXPECT_LT(s.at(i - 1), s.at(i));
  // 63 points from 1 to 2^31: 31 octaves in 62 steps, two points an octave; 2^16 is point 32 of
  // them, index 32 of the set (0 comes first, the repeated 1 is gone).
  EXPECT_EQ(s.at(32), std::int64_t{1} << 16);
  // Near 1 the rounded points repeat (1, 1.41, 2, 2.83, 4, ...): 1, 2, 3, 4 are kept once each.
  EXPECT_EQ(s.at(2), 2);
  EXPECT_EQ(s.at(3), 3);
  EXPECT_EQ(s.at(4), 4);
}

TEST(position_set, a_log_set_of_two_from_0_is_0_and_b) {
  const auto s = position_set::parse("log:0:100:2");
  EXPECT_EQ(s.size(), 2);
  EXPECT_EQ(s.at(0), 0);
  EXPECT_EQ(s.at(1), 100);
}

TEST(position_set, bad_text_is_named_in_one_line) {
  const auto message = [](const char* text) {
    try {
      position_set::parse(text);
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("5:5"), "--positions '5:5': the range is empty (a:b means a <= p < b)");
  EXPECT_EQ(message("-1:5"), "--positions '-1:5': '-1' is not an integer from 0 to 2^62 or 2^k (k <= 62)");
  EXPECT_EQ(message("0:2^63"), "--positions '0:2^63': '2^63' is not an integer from 0 to 2^62 or 2^k (k <= 62)");
  EXPECT_EQ(message("0:9223372036854775807"), "--positions '0:9223372036854775807': '9223372036854775807' is not an integer from 0 to 2^62 or 2^k (k <= 62)");
  EXPECT_EQ(message("log:0:100:1"), "--positions 'log:0:100:1': N must be 2 to 1048576");
  EXPECT_EQ(message("1:2:3"), "--positions '1:2:3': give a range a:b (a <= p < b) or a log-spaced set log:a:b:N");
}

TEST(shard, the_parts_tile_the_set_in_order) {
  for (const std::int64_t size : {1, 7, 100, 1000003}) {
    std::int64_t next = 0;
    for (std::int64_t i = 1; i <= 7; ++i) {
      const auto s = shard::parse(fmt::format("{}/7", i));
      EXPECT_EQ(s.begin(size), next);
      next = s.end(size);
    }
    EXPECT_EQ(next, size);
  }
}

TEST(shard, bad_text_is_named_in_one_line) {
  for (const char* text : {"0/3", "4/3", "3", "a/b", "1/0"}) {
    try {
      shard::parse(text);
      ADD_FAILURE() << text;
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()), fmt::format("--shard '{}': give i/n with 1 <= i <= n (shard i of n)", text));
    }
  }
}

}  // namespace
}  // namespace pe::audit
