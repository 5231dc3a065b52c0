// Tests for rotate's narrower outputs (binary32, bf16, fp16) through the binary64 fast path: every output is the exact value rounded once into its format, midpoints of that format included.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "pe/float_format.hpp"
#include "pe/ops.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"
#include "support/random_rope_call.hpp"

namespace {

using pe::mp_real;

struct rounding_count {
  int wrong = 0;      // outputs that are not the exact value rounded once into T's format
  int midpoints = 0;  // exact values whose binary64 rounding is a midpoint of T's format
  int wrong_if_rounded_twice = 0;  // exact values whose binary64 rounding, rounded into T, is not their own rounding
};

// rotate at T against the 256-bit reference rounded once into T's format, element by element
// (compared through the exact double each value holds, signs of zeros included).
template <class T>
rounding_count count_exact_roundings(const std::string& spec_text, const std::vector<double>& x, const std::vector<std::int64_t>& pos, std::int64_t heads) {
  const pe::spec s = pe::parse_spec(spec_text);
  pe::op_inputs in;
  in.pos = pos;
  const std::int64_t tokens = static_cast<std::int64_t>(pos.size());
  in.x = pe::tensor<double>({tokens, heads, static_cast<std::int64_t>(x.size()) / tokens / heads});
  in.x.data = x;
  const auto got = pe::run_op<T>("rotate", s, in).at(0).value;
  pe::mp_precision scope(256);
  const auto exact = pe::run_op<mp_real>("rotate", s, in).at(0).value;
  rounding_count count;
  for (std::size_t e = 0; e < x.size(); ++e) {
    const double want = pe::round_to_format(exact.data[e], pe::format_of<T>());
    const double have = static_cast<double>(got.data[e]);
    const double binary64 = exact.data[e].template convert_to<double>();
    if (pe::is_midpoint_in_format(binary64, pe::format_of<T>())) ++count.midpoints;
    if (pe::round_to_format(binary64, pe::format_of<T>()) != want) ++count.wrong_if_rounded_twice;
    if (std::signbit(have) != std::signbit(want) || have != want) ++count.wrong;
  }
  return count;
}

template <class T>
void random_rotation_rounds_exactly() {
  const auto call = pe::test::random_rope_call(16);
  const auto& [spec, dim, heads, tokens, pos] = call;
  std::vector<double> x;
  for (std::int64_t e = 0; e < tokens * heads * dim; ++e) {
    // Values of the narrow format, zeros, magnitudes past its range, and doubles between its values.
    x.push_back(*rc::gen::weightedOneOf<double>({{6, rc::gen::map(rc::gen::inRange(-4096, 4097), [](int v) { return v / 64.0; })},
                                                 {1, rc::gen::element(0.0, -0.0, 0x1p-140, -0x1p-20, 70000.0, 0x1p130)},
                                                 {2, rc::gen::map(rc::gen::inRange(-1000000, 1000001), [](int v) { return v / 4096.0 + 0x1p-40; })}}));
  }
  RC_ASSERT(count_exact_roundings<T>(spec, x, pos, heads).wrong == 0);
}

RC_GTEST_PROP(narrow_rotate, binary32_is_the_exact_value_rounded_once, ()) { random_rotation_rounds_exactly<float>(); }
RC_GTEST_PROP(narrow_rotate, bf16_is_the_exact_value_rounded_once, ()) { random_rotation_rounds_exactly<pe::bf16>(); }
RC_GTEST_PROP(narrow_rotate, fp16_is_the_exact_value_rounded_once, ()) { random_rotation_rounds_exactly<pe::fp16>(); }

// Outputs whose binary64 rounding lands exactly on a midpoint of the narrow format: at position 0
// YaRN's rotation is y = a x (a the attention factor), and x = m / a rounded to binary64 for a
// midpoint m puts a x within a double's half-spacing of m, so about half of them round onto m.
// Rounding that double once more would tie to even, though the exact value lies on one side; the
// fast path must send those pairs to the wide path. Without the midpoint check this fails.
template <class T>
void midpoints_round_by_the_exact_value() {
  const std::string spec = "rope(dim=2, scaling=yarn(factor=4, original_max=2048))";
  const pe::spec s = pe::parse_spec(spec);
  double a = 0;
  {
    pe::mp_precision scope(256);
    pe::op_inputs in;
    in.x = pe::tensor<double>({1, 1, 2});
    in.x.data = {1.0, 0.0};
    in.pos = {0};
    a = pe::run_op<mp_real>("rotate", s, in).at(0).value.data[0].template convert_to<double>();
  }
  std::vector<double> x;
  std::vector<std::int64_t> pos;
  const double half = pe::ulp_in_format(1.0, pe::format_of<T>()) / 2;
  for (int j = 0; j < 400 && 1 + (2 * j + 1) * half < 2; ++j) {
    const double m = 1 + (2 * j + 1) * half;  // a midpoint of T's format in [1, 2)
    x.push_back(m / a);
    x.push_back(0.0);
    pos.push_back(0);
  }
  const rounding_count count = count_exact_roundings<T>(spec, x, pos, 1);
  // The cases exist (so the check below can fail), then every output is right.
  EXPECT_GT(count.wrong_if_rounded_twice, 20);
  EXPECT_GT(count.midpoints, 20);
  EXPECT_EQ(count.wrong, 0);
}

TEST(narrow_rotate, binary32_midpoints_round_by_the_exact_value) { midpoints_round_by_the_exact_value<float>(); }
TEST(narrow_rotate, bf16_midpoints_round_by_the_exact_value) { midpoints_round_by_the_exact_value<pe::bf16>(); }
TEST(narrow_rotate, fp16_midpoints_round_by_the_exact_value) { midpoints_round_by_the_exact_value<pe::fp16>(); }

// The midpoint test itself, on values whose answer is known.
TEST(narrow_rotate, midpoints_are_the_odd_half_spacings) {
  EXPECT_TRUE(pe::is_midpoint_in_format(1 + 0x1p-24, pe::binary32));
  EXPECT_FALSE(pe::is_midpoint_in_format(1 + 0x1p-23, pe::binary32));
  EXPECT_FALSE(pe::is_midpoint_in_format(1 + 0x1p-25, pe::binary32));
  EXPECT_TRUE(pe::is_midpoint_in_format(-(2 - 0x1p-24), pe::binary32));
  EXPECT_TRUE(pe::is_midpoint_in_format(0x1p-150, pe::binary32));  // halfway from 0 to the least subnormal
  EXPECT_TRUE(pe::is_midpoint_in_format(3 * 0x1p-25, pe::binary16));   // fp16's subnormals are 2^-24 apart
  EXPECT_FALSE(pe::is_midpoint_in_format(3 * 0x1p-24, pe::binary16));
  EXPECT_TRUE(pe::is_midpoint_in_format(65520.0, pe::binary16));  // halfway from fp16's largest to 2^16: rounds to Inf
  EXPECT_TRUE(pe::is_midpoint_in_format(1 + 0x1p-8, pe::bfloat16));
  EXPECT_FALSE(pe::is_midpoint_in_format(0.0, pe::binary32));
  EXPECT_FALSE(pe::is_midpoint_in_format(INFINITY, pe::binary32));
}

}  // namespace
