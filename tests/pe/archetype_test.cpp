// Compiles every encoding with the archetype scalar: generic code must not silently compute in double.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <functional>
#include <utility>

#include "pe/ops.hpp"
#include "pe/schemes/absolute.hpp"
#include "pe/schemes/sinusoidal.hpp"
#include "support/archetype.hpp"

namespace {

using pe_test::archetype;

using encoder = std::function<pe::tensor<archetype>(const pe::spec&, std::span<const std::int64_t>)>;

// The archetype runs the scheme's generic (naive) template directly (the registry's hooks hold
// the five real scalars only); at small positions it agrees with the exact binary64 reference to
// a few ulps of the naive angle's rounding.
void expect_close_to_double(const char* text, const encoder& generic_encode) {
  const pe::spec s = pe::parse_spec(text);
  const std::vector<std::int64_t> pos{0, 1, 2, 7};
  const auto generic = generic_encode(s, pos);
  const auto exact = pe::encode<double>(s, pos);
  ASSERT_EQ(generic.shape, exact.shape) << text;
  for (size_t k = 0; k < exact.data.size(); ++k) {
    // 1e-14: the naive angle 7 * pow(base, e) carries a few ulps of rounding (|angle| <= 7).
    EXPECT_NEAR(generic.data[k].value_for_test(), exact.data[k], 1e-14) << text << " element " << k;
  }
}

TEST(archetype, every_encoding_compiles_and_agrees) {
  const encoder sinusoidal = [](const pe::spec& s, std::span<const std::int64_t> p) { return pe::sinusoidal_encode<archetype>(s, p); };
  expect_close_to_double("sinusoidal(dim=8)", sinusoidal);
  expect_close_to_double("sinusoidal(dim=8, layout=concat)", sinusoidal);
  expect_close_to_double("sinusoidal(dim=8, layout=fairseq, base=500)", sinusoidal);
  expect_close_to_double("integer(dim=3)", [](const pe::spec& s, std::span<const std::int64_t> p) { return pe::integer_encode<archetype>(s, p); });
  expect_close_to_double("normalized(dim=3, length=8)",
                         [](const pe::spec& s, std::span<const std::int64_t> p) { return pe::normalized_encode<archetype>(s, p); });
  expect_close_to_double("binary(dim=5)", [](const pe::spec& s, std::span<const std::int64_t> p) { return pe::binary_encode<archetype>(s, p); });
  expect_close_to_double("learned(dim=3, max_len=8, seed=4)",
                         [](const pe::spec& s, std::span<const std::int64_t> p) { return pe::learned_encode<archetype>(s, p); });
  expect_close_to_double("none(dim=2)", [](const pe::spec& s, std::span<const std::int64_t> p) { return pe::none_encode<archetype>(s, p); });
}

// The RoPE family through the generic path: every scaling's formula, the rotation engine and
// the axial forms compile with the archetype on the registry's rotation plan and agree with the
// exact binary64 reference.
TEST(archetype, rope_family_compiles_and_agrees) {
  for (const char* text :
       {"rope(dim=8, rotary_dim=6, layout=gptj)", "rope(dim=8, scaling=linear(factor=4))", "rope(dim=8, scaling=ntk(factor=4))",
        "rope(dim=8, scaling=dynamic(factor=2, original_max=4))", "rope(dim=8, scaling=yarn(factor=4, original_max=64))",
        "rope(dim=8, scaling=yarn(factor=4, original_max=64, magnitude=ggml, attention_factor=0.5))",
        "rope(dim=8, scaling=yarn(factor=4, original_max=64, mscale=1, mscale_all_dim=0.5))",
        "rope(dim=8, base=500000, scaling=llama3(factor=8, original_max=8))",
        "rope(dim=8, scaling=longrope(short_factor=[1,2,3,4], long_factor=[2,3,4,5], original_max=4, max_pos=16))",
        "rope_nd(axes=[4, 4])", "mrope(dim=8, sections=[2, 1, 1], interleaved=true)"}) {
    const pe::spec s = pe::parse_spec(text);
    const std::int64_t axes = pe::position_axes(s), dim = *pe::head_dim(s);
    pe::tensor<double> x({3, 1, dim});
    for (size_t k = 0; k < x.data.size(); ++k) x.data[k] = 0.25 * static_cast<double>(k % 7) - 0.5;
    std::vector<std::int64_t> pos;
    for (std::int64_t t = 0; t < 3 * axes; ++t) pos.push_back(3 * t + 1);
    const pe::op_inputs in{pos, axes, x};
    for (const char* op : {"inv_freq", "rotate"}) {
      const auto plan = pe::rotation_plan_of(s, pe::call_seq_len(pos));
      const auto generic = std::string(op) == "rotate"
                               ? std::vector<pe::named_tensor<archetype>>{{"y", pe::rotate_pairs<archetype>(plan, x, pos)}}
                               : pe::plan_inv_freq<archetype>(pe::rotation_plan_of(s, std::nullopt));
      const auto exact = pe::run_op<double>(op, s, in);
      ASSERT_EQ(generic.size(), exact.size());
      for (size_t o = 0; o < exact.size(); ++o)
        for (size_t k = 0; k < exact[o].value.data.size(); ++k) {
          // The naive angle (p <= 25) and the formulas in plain double: a few ulps of values <= ~3.
          EXPECT_NEAR(generic[o].value.data[k].value_for_test(), exact[o].value.data[k], 1e-13) << text << " " << op << " " << k;
        }
    }
  }
}

}  // namespace
