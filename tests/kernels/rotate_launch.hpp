// One RoPE rotate launch over random binary32 inputs with pecheck's binary64 reference, and the accurate mode's per-element bound, shared by the host-emulation test and the CUDA plugin's test.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/host_tables.hpp"
#include "kernels/rotate_kernel.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe::kernels::testing {

// One rope spec's launch over random binary32 inputs, and pecheck's binary64 reference for it.
struct rotate_launch {
  std::string spec;
  std::vector<float> x, y;
  std::vector<std::int64_t> pos;
  rotate_tables tables;
  rotate_args args{};
  std::vector<double> reference;  // correctly rounded binary64 of the exact rotation of x

  rotate_launch(const char* spec_text, std::int64_t tokens, std::int64_t heads, std::int64_t max_pos, angle_mode mode, std::uint32_t seed)
      : spec(spec_text) {
    const pe::spec s = pe::parse_spec(spec_text);
    const std::int64_t dim = s.integer("dim");
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> value(-2.0f, 2.0f);
    pe::op_inputs in;
    in.x = pe::tensor<double>({tokens, heads, dim});
    for (auto& v : in.x.data) x.push_back(value(rng)), v = x.back();
    for (std::int64_t t = 0; t < tokens; ++t) pos.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(2 * max_pos + 1)) - max_pos);
    // The ends of int64, where |p| reaches 2^63 (the accurate mode's statement covers them).
    pos[0] = std::numeric_limits<std::int64_t>::min(), pos[1] = std::numeric_limits<std::int64_t>::max();
    in.pos = pos;
    tables = rotate_tables::of(s, pos);
    reference = pe::run_op<double>("rotate", s, in).at(0).value.data;
    y.assign(x.size(), NAN);
    args = {x.data(), y.data(), pos.data(), tables.inv_freq.data(), tables.turns.data(), tables.factor,
            tokens, heads, dim, s.integer("rotary_dim"), s.choice("layout") == "neox", io_type::f32, mode};
  }
};

// The accurate mode's statement (proofs/precision.kernel_rotate.md): |y - exact| <= ulp32(y) / 2 +
// A (|x_a| + |x_b|) 2^-48 on every rotated element, the pass-through dims copied exactly. Checks y
// (l.y, or another backend's output for the same inputs) against l's reference on every element;
// returns the worst fraction of the bound, and says it on stdout under `who`.
inline double check_accurate_bound(const rotate_launch& l, const std::vector<float>& y, const char* who) {
  double worst = 0;
  const std::int64_t dim = l.args.dim, rotary = l.args.rotary_dim;
  for (std::size_t e = 0; e < y.size(); ++e) {
    const auto d = static_cast<std::int64_t>(e) % dim;
    const std::size_t row = e - static_cast<std::size_t>(d);
    if (d >= rotary) {
      EXPECT_EQ(y[e], l.x[e]) << who << ", " << l.spec << ": pass-through dim " << d;
      continue;
    }
    // The pair's partner dim, for the |x_a| + |x_b| of the bound.
    const std::int64_t half = rotary / 2;
    const std::int64_t partner = l.args.neox ? (d < half ? d + half : d - half) : (d ^ 1);
    const double n = std::fabs(l.x[e]) + std::fabs(l.x[row + static_cast<std::size_t>(partner)]);
    const double want = l.reference[e];
    const double bound = 0.5 * std::ldexp(1.0, std::ilogb(want) - 23) + l.args.factor * n * 0x1p-48 + 0x1p-149;
    worst = std::max(worst, std::fabs(y[e] - want) / bound);
    if (!(std::fabs(y[e] - want) <= bound)) {
      ADD_FAILURE() << who << ", " << l.spec << " element " << e << ": " << y[e] << " against " << want;
      return worst;
    }
  }
  std::cout << who << ", " << l.spec << ": worst fraction of the accurate bound " << worst << "\n";
  return worst;
}

}  // namespace pe::kernels::testing
