// Tests of src/convert/layer_ranges.hpp: the repeating pattern against its definition, and runs as text.
#include "convert/layer_ranges.hpp"

#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace pe::convert {
namespace {

// The definition, written out: the smallest p in 2..min(256, count / 2) with layer i in the set
// exactly when layer i mod p is, over every i below count.
std::optional<layer_period> period_by_definition(const std::vector<std::int64_t>& layers, std::int64_t count) {
  if (count < 4 || layers.empty() || static_cast<std::int64_t>(layers.size()) == count) return std::nullopt;
  std::vector<bool> in(static_cast<std::size_t>(count), false);
  for (const auto l : layers) in[static_cast<std::size_t>(l)] = true;
  for (std::int64_t p = 2; p <= std::min<std::int64_t>(256, count / 2); ++p) {
    bool repeats = true;
    for (std::int64_t i = 0; i < count; ++i) repeats = repeats && in[static_cast<std::size_t>(i)] == in[static_cast<std::size_t>(i % p)];
    if (repeats) return layer_period{std::count(in.begin(), in.begin() + p, true), p};
  }
  return std::nullopt;
}

// Layers chosen from `count`: one in each `period` at the offsets drawn (a pattern), with some
// layers flipped (a broken pattern) or none.
RC_GTEST_PROP(layer_ranges, period_of_agrees_with_the_definition, ()) {
  const auto count = *rc::gen::inRange<std::int64_t>(1, 700);
  const auto period = *rc::gen::inRange<std::int64_t>(1, 300);
  const auto offsets = *rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(0, period));
  const auto flips = *rc::gen::container<std::vector<std::int64_t>>(*rc::gen::inRange<std::size_t>(0, 3), rc::gen::inRange<std::int64_t>(0, count));
  std::vector<bool> in(static_cast<std::size_t>(count), false);
  for (std::int64_t i = 0; i < count; ++i) in[static_cast<std::size_t>(i)] = std::find(offsets.begin(), offsets.end(), i % period) != offsets.end();
  for (const auto f : flips) in[static_cast<std::size_t>(f)] = !in[static_cast<std::size_t>(f)];
  std::vector<std::int64_t> layers;
  for (std::int64_t i = 0; i < count; ++i)
    if (in[static_cast<std::size_t>(i)]) layers.push_back(i);
  const auto got = period_of(layers, count);
  const auto want = period_by_definition(layers, count);
  RC_ASSERT(got.has_value() == want.has_value());
  if (got) {
    RC_ASSERT(got->period == want->period);
    RC_ASSERT(got->in_each == want->in_each);
  }
}

TEST(layer_ranges, gemma3s_five_of_every_six) {
  std::vector<std::int64_t> sliding;
  for (std::int64_t i = 0; i < 34; ++i)
    if (i % 6 != 5) sliding.push_back(i);
  const auto p = period_of(sliding, 34);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->in_each, 5);
  EXPECT_EQ(p->period, 6);
  EXPECT_EQ(ranges_text(sliding), "0-4, 6-10, 12-16, 18-22, 24-28, 30-33");
  // One layer of many repeats nothing.
  EXPECT_FALSE(period_of({7}, 100000).has_value());
}

}  // namespace
}  // namespace pe::convert
