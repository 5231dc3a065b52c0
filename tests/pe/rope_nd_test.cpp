// Tests for src/pe/schemes/rope_nd.hpp: axial rope_nd and multimodal mrope (Qwen2-VL sections, Qwen3-VL interleaving).
#include "pe/schemes/rope_nd.hpp"

#include <gtest/gtest.h>

#include "support/spec_errors.hpp"

#include <random>
#include <set>
#include <string>
#include <vector>

#include "pe/ops.hpp"
#include "pe/ulp.hpp"

namespace {

using pe::parse_spec;

pe::tensor<double> vectors(std::int64_t tokens, std::int64_t dim, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  pe::tensor<double> x({tokens, 1, dim});
  for (auto& v : x.data) v = u(rng);
  return x;
}

template <class T = double>
pe::tensor<T> rotate(const std::string& text, const pe::tensor<double>& x, const std::vector<std::int64_t>& pos) {
  pe::op_inputs in{pos, pe::position_axes(parse_spec(text)), x};
  return pe::run_op<T>("rotate", parse_spec(text), in)[0].value;
}

// The dims a rotation moved (x = all ones, so every rotated pair changes).
std::set<std::int64_t> moved_dims(const std::string& text, std::int64_t dim, const std::vector<std::int64_t>& row) {
  pe::tensor<double> x({1, 1, dim});
  for (auto& v : x.data) v = 1;
  const auto y = rotate(text, x, row);
  std::set<std::int64_t> out;
  for (std::int64_t d = 0; d < dim; ++d)
    if (y.data[d] != 1) out.insert(d);
  return out;
}

TEST(mrope, equal_positions_reduce_to_rope) {
  const auto x = vectors(3, 16, 1);
  for (const char* text : {"mrope(dim=16, sections=[2, 3, 3])", "mrope(dim=16, sections=[4, 2, 2], interleaved=true)"}) {
    const auto y = rotate(text, x, {0, 0, 0, 7, 7, 7, 1 << 30, 1 << 30, 1 << 30});
    const auto want = rotate("rope(dim=16)", x, {0, 7, 1 << 30});
    EXPECT_EQ(y.data, want.data) << text;
  }
}

TEST(mrope, qwen2_vl_sections_are_contiguous) {
  // sections [2, 3, 3]: pairs 0-1 read t, 2-4 read h, 5-7 read w; pair j is dims (j, j + 8).
  EXPECT_EQ(moved_dims("mrope(dim=16, sections=[2, 3, 3])", 16, {5, 0, 0}), (std::set<std::int64_t>{0, 1, 8, 9}));
  EXPECT_EQ(moved_dims("mrope(dim=16, sections=[2, 3, 3])", 16, {0, 5, 0}), (std::set<std::int64_t>{2, 3, 4, 10, 11, 12}));
  EXPECT_EQ(moved_dims("mrope(dim=16, sections=[2, 3, 3])", 16, {0, 0, 5}), (std::set<std::int64_t>{5, 6, 7, 13, 14, 15}));
}

TEST(mrope, gptj_layout_pairs_neighbours_with_each_pairs_own_section) {
  // GLM-4.1V: pair j is dims (2j, 2j + 1), reading the same section as in neox pairs.
  EXPECT_EQ(moved_dims("mrope(dim=16, sections=[2, 3, 3], layout=gptj)", 16, {5, 0, 0}), (std::set<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(moved_dims("mrope(dim=16, sections=[2, 3, 3], layout=gptj)", 16, {0, 5, 0}), (std::set<std::int64_t>{4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(moved_dims("mrope(dim=16, sections=[2, 3, 3], layout=gptj)", 16, {0, 0, 5}), (std::set<std::int64_t>{10, 11, 12, 13, 14, 15}));
  // Equal positions: rope in gptj pairs.
  const auto x = vectors(3, 16, 1);
  EXPECT_EQ(rotate("mrope(dim=16, sections=[2, 3, 3], layout=gptj)", x, {0, 0, 0, 7, 7, 7, 1 << 30, 1 << 30, 1 << 30}).data,
            rotate("rope(dim=16, layout=gptj)", x, {0, 7, 1 << 30}).data);
}

TEST(mrope, qwen3_vl_interleaves_h_and_w) {
  // Qwen3-VL's default sections [24, 20, 20] at head dim 128: pair j reads h when j % 3 == 1
  // and j < 60, w when j % 3 == 2 and j < 60, t otherwise (so pairs 60..63 read t).
  const std::string text = "mrope(dim=128, sections=[24, 20, 20], interleaved=true)";
  std::set<std::int64_t> h, w, t;
  for (std::int64_t j = 0; j < 64; ++j) {
    auto& set = (j % 3 == 1 && j < 60) ? h : (j % 3 == 2 && j < 60) ? w : t;
    set.insert(j);
    set.insert(j + 64);
  }
  EXPECT_EQ(moved_dims(text, 128, {0, 3, 0}), h);
  EXPECT_EQ(moved_dims(text, 128, {0, 0, 3}), w);
  // Position 0 of t leaves everything still; pair 0 (frequency 1) reads t, and pair 0 moves.
  EXPECT_EQ(moved_dims(text, 128, {3, 0, 0}), t);
  EXPECT_EQ(t.count(0), 1u);
}

// mrope reads an expression base exactly at MPFR precision: (1e4 pi)^(-1/2) at 256 bits, all 76
// digits as mpmath gives them at 300 bits (a base rounded to binary64 would agree to about 16).
TEST(mrope, an_expression_base_is_exact_at_256_bits) {
  pe::mp_precision scope(256);
  const auto inv = pe::run_op<pe::mp_real>("inv_freq", parse_spec("mrope(dim=4, sections=[1, 1, 0], base=1e4*pi)"), {})[0].value.data;
  const pe::mp_real want("0.0056418958354775628694807945156077258584405062932899885684408572171064246844149341");
  EXPECT_LT(abs(pe::mp_real(inv.at(1) - want) / want), pe::mp_real("1e-75"));
}

TEST(rope_nd, one_axis_is_rope) {
  const auto x = vectors(2, 12, 2);
  EXPECT_EQ(rotate("rope_nd(axes=[12], layout=neox)", x, {3, 1000}).data, rotate("rope(dim=12)", x, {3, 1000}).data);
  EXPECT_EQ(rotate("rope_nd(axes=[12])", x, {3, 1000}).data, rotate("rope(dim=12, layout=gptj)", x, {3, 1000}).data);
}

TEST(rope_nd, axes_rotate_their_own_blocks) {
  // Flux-like axes [4, 6, 6]: axis 0 owns dims 0-3, axis 1 dims 4-9, axis 2 dims 10-15, each
  // with omega = base^(-2i/d_a) from its own i = 0.
  const std::string text = "rope_nd(axes=[4, 6, 6])";
  EXPECT_EQ(moved_dims(text, 16, {7, 0, 0}), (std::set<std::int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(moved_dims(text, 16, {0, 7, 0}), (std::set<std::int64_t>{4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(moved_dims(text, 16, {0, 0, 7}), (std::set<std::int64_t>{10, 11, 12, 13, 14, 15}));
  // Each block is rope of its own dim at its own position.
  const auto x = vectors(1, 16, 3);
  const auto y = rotate(text, x, {5, 9, 2});
  pe::tensor<double> block({1, 1, 6});
  std::copy(x.data.begin() + 4, x.data.begin() + 10, block.data.begin());
  const auto want = rotate("rope(dim=6, layout=gptj)", block, {9});
  for (int d = 0; d < 6; ++d) EXPECT_EQ(y.data[4 + d], want.data[d]) << d;
  const auto inv = pe::run_op<double>("inv_freq", parse_spec("rope_nd(axes=[4, 6], base=100)"), {})[0].value.data;
  pe::mp_precision scope(256);
  const char* want_inv[] = {"1", "0.1", "1", "0.2154434690031883721759293566519350495259", "0.04641588833612778892410076350919446576551"};
  for (int k = 0; k < 5; ++k) EXPECT_LE(pe::error_in_ulps(inv[k], pe::mp_real(want_inv[k]), pe::binary64), 0.5 + 1e-9) << k;
}

TEST(rope_family, binary64_is_within_1_ulp_of_256_bits) {
  const std::vector<std::int64_t> rows{1, 2, 3, 1 << 20, 5, 1 << 30, (std::int64_t{1} << 40) + 1, 7, 99};
  for (const char* text : {"rope_nd(axes=[4, 6, 6])", "mrope(dim=16, sections=[2, 3, 3])",
                           "mrope(dim=16, sections=[2, 3, 3], interleaved=true)"}) {
    const auto x = vectors(3, 16, 4);
    const auto fast = rotate<double>(text, x, rows);
    pe::mp_precision scope(256);
    const auto exact = rotate<pe::mp_real>(text, x, rows);
    for (size_t k = 0; k < fast.data.size(); ++k) {
      EXPECT_LE(pe::error_in_ulps(fast.data[k], exact.data[k], pe::binary64), 1.0) << text << " " << k;
    }
  }
}

std::string error_of(const std::string& text) { return pe_test::spec_error_of(text); }

TEST(rope_family, errors_name_the_field) {
  const std::pair<const char*, const char*> cases[] = {
      {"rope_nd(axes=[])", "rope_nd: axes is empty; give at least one axis, e.g. [16, 56, 56]"},
      {"rope_nd(axes=[4, 5])", "rope_nd: axes has 5; each axis needs an even number of dims >= 2"},
      {"rope_nd(axes=[4, 2.5])", "rope_nd: axes has 2.5, which is not a count in 0..1048576"},
      {"mrope(dim=16, sections=[2, 3])", "mrope: sections has 2 values; it needs [t, h, w]"},
      {"mrope(dim=16, sections=[2, 3, 4])", "mrope: sections sum to 9; dim=16 needs 8 pairs"},
      {"mrope(dim=15, sections=[2, 3, 2])", "mrope: dim=15 is odd; rotation pairs need an even dim"},
      {"mrope(dim=16, sections=[-1, 5, 4])", "mrope: sections has -1, which is not a count in 0..1048576"},
  };
  for (const auto& [text, message] : cases) EXPECT_EQ(error_of(text), message) << text;
}

}  // namespace
