// Tests for src/gate/coverage.hpp: which class a call falls in, and which classes drawn stay never answered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "gate/checks.hpp"
#include "gate/coverage.hpp"

namespace pe::gate {
namespace {

op_inputs rotate_at(std::vector<std::int64_t> pos) {
  op_inputs in;
  in.pos = std::move(pos);
  return in;
}

std::vector<std::string> names_of(const op_inputs& in) {
  std::vector<std::string> out;
  for (const auto c : coverage::classes_of(in, dtype::f32)) out.emplace_back(coverage::class_name(c));
  return out;
}

TEST(coverage, a_call_falls_in_the_band_of_its_largest_position_and_its_token_count) {
  using v = std::vector<std::string>;
  EXPECT_EQ(names_of(rotate_at({0})), (v{"position 0", "one token"}));
  EXPECT_EQ(names_of(rotate_at({0, 256})), (v{"positions in [1, 2^8]", "several tokens"}));  // the band's top is in it
  EXPECT_EQ(names_of(rotate_at({257})), (v{"positions in (2^8, 2^16]", "one token"}));
  EXPECT_EQ(names_of(rotate_at({3, std::int64_t{1} << 24})), (v{"positions in (2^16, 2^24]", "several tokens"}));
  EXPECT_EQ(names_of(rotate_at({(std::int64_t{1} << 24) + 1})), (v{"positions in (2^24, 2^32]", "one token"}));
  EXPECT_EQ(names_of(rotate_at({std::int64_t{1} << 40})), (v{"positions in (2^32, 2^40]", "one token"}));
  EXPECT_EQ(names_of(rotate_at({INT64_MIN})), (v{"positions past 2^40", "one token"}));  // |INT64_MIN| taken as INT64_MAX
  op_inputs bias;  // bias: tokens are the queries; a key's position counts for the band
  bias.qpos = {0, 1}, bias.kpos = {70000};
  EXPECT_EQ(names_of(bias), (v{"positions in (2^16, 2^24]", "several tokens"}));
  op_inputs two_axes = rotate_at({5, 6});  // one token of a 2-D scheme
  two_axes.pos_axes = 2;
  EXPECT_EQ(names_of(two_axes), (v{"positions in [1, 2^8]", "one token"}));
  EXPECT_TRUE(coverage::classes_of(op_inputs{}, dtype::f32).empty());  // inv_freq: no positions, nothing to cover
  op_inputs heads = rotate_at({9, 1});  // rotate's x [T, H, D]: one head or several
  heads.x = tensor<double>({2, 1, 4});
  EXPECT_EQ(names_of(heads), (v{"positions in [1, 2^8]", "several tokens", "one head"}));
  heads.x = tensor<double>({2, 17, 4});
  EXPECT_EQ(names_of(heads), (v{"positions in [1, 2^8]", "several tokens", "several heads"}));
}

// x [1, 1, 4] at position 3 holding `value` beside ordinary ones: whether the call is in the edge class for io.
bool at_edges(double value, dtype io) {
  op_inputs in = rotate_at({3});
  in.x = tensor<double>({1, 1, 4});
  in.x.data = {0.5, -2, value, 0};
  const auto classes = coverage::classes_of(in, io);
  return std::find(classes.begin(), classes.end(), coverage::class_count - 1) != classes.end();
}

TEST(coverage, values_at_the_dtypes_edges_are_a_class_of_their_own) {
  EXPECT_EQ(std::string(coverage::class_name(coverage::class_count - 1)), "values at the I/O dtype's edges (subnormal, or past 2^(emax - 4))");
  EXPECT_FALSE(at_edges(1, dtype::f32));
  EXPECT_FALSE(at_edges(-0.0, dtype::f32));                 // zeros are ordinary draws too
  EXPECT_TRUE(at_edges(std::ldexp(1.0, -149), dtype::f32));  // binary32's smallest subnormal
  EXPECT_TRUE(at_edges(-std::ldexp(1.0, -127), dtype::f32));
  EXPECT_FALSE(at_edges(std::ldexp(1.0, -126), dtype::f32));  // its smallest normal
  EXPECT_FALSE(at_edges(std::ldexp(1.0, 123), dtype::f32));   // 2^(emax - 4) itself is not past it
  EXPECT_TRUE(at_edges(-std::ldexp(1.5, 123), dtype::f32));
  EXPECT_TRUE(at_edges(std::ldexp(1.0, -15), dtype::f16));    // binary16: subnormal below 2^-14
  EXPECT_FALSE(at_edges(std::ldexp(1.0, -15), dtype::f32));
  EXPECT_TRUE(at_edges(4096, dtype::f16));                   // past 2^11
  EXPECT_FALSE(at_edges(4096, dtype::bf16));
  EXPECT_TRUE(at_edges(std::ldexp(1.0, -1023), dtype::f64));
  EXPECT_FALSE(at_edges(std::ldexp(1.0, -1000), dtype::f64));
}

TEST(coverage, a_class_drawn_and_never_answered_is_named) {
  coverage c(dtype::f32);
  c.drawn(rotate_at({0}));
  c.answered(rotate_at({0}));
  c.drawn(rotate_at({1000, 2}));  // declined
  c.drawn(rotate_at({0, 0}));     // declined: several tokens never answered
  EXPECT_EQ(c.never_answered(), (std::vector<std::string>{"positions in (2^8, 2^16]", "several tokens"}));
  EXPECT_EQ(c.top_answered_position(), 0);
  c.drawn(rotate_at({70000, 3}));
  c.answered(rotate_at({70000, 3}));
  EXPECT_EQ(c.never_answered(), (std::vector<std::string>{"positions in (2^8, 2^16]"}));
  EXPECT_EQ(c.top_answered_position(), 70000);
  c.answered(rotate_at({300}));
  EXPECT_TRUE(c.never_answered().empty());
  op_inputs ordinary = rotate_at({300});  // one head, ordinary values: answered
  ordinary.x = tensor<double>({1, 1, 2});
  ordinary.x.data = {0.25, 1};
  c.drawn(ordinary);
  c.answered(ordinary);
  EXPECT_TRUE(c.never_answered().empty());
  op_inputs subnormal = ordinary;  // the same call with a binary32 subnormal, declined: the edge class never answered
  subnormal.x.data = {1e-40, 1};
  c.drawn(subnormal);
  EXPECT_EQ(c.never_answered(), (std::vector<std::string>{"values at the I/O dtype's edges (subnormal, or past 2^(emax - 4))"}));
}

TEST(coverage, hold_to_coverage_turns_a_hollow_pass_incomplete_and_leaves_the_rest) {
  check_result whole{"conformance.rotate", "rope(dim=8)"};
  whole.cases = whole.planned = 100;
  hold_to_coverage(whole);
  EXPECT_EQ(whole.result, verdict::pass);
  check_result short_of{"conformance.rotate", "rope(dim=8)"};
  short_of.cases = 15, short_of.planned = 100, short_of.declined_ops = {"rotate"};
  hold_to_coverage(short_of);
  EXPECT_EQ(short_of.result, verdict::incomplete);
  EXPECT_EQ(short_of.detail, "15 of the 100 cases asked for were answered (rotate declined)");
  check_result uncovered{"determinism", "rope(dim=8)"};
  uncovered.cases = uncovered.planned = 10, uncovered.never_answered = {"one token"};
  hold_to_coverage(uncovered);
  EXPECT_EQ(uncovered.result, verdict::incomplete);
  EXPECT_EQ(uncovered.detail, "never answered: one token");
  check_result failed{"conformance.rotate", "rope(dim=8)"};
  failed.result = verdict::fail, failed.cases = 1, failed.planned = 100;
  hold_to_coverage(failed);
  EXPECT_EQ(failed.result, verdict::fail);  // a failure stays the story
}

}  // namespace
}  // namespace pe::gate
