// Tests for src/kernels/rotate_kernel.hpp through the host emulation of the grid: coverage of the work items, pass-through, layouts, and the accurate mode's bound against pecheck's binary64 reference.
#include "kernels/rotate_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "kernels/host_grid.hpp"
#include "kernels/host_tables.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace {

using pe::kernels::angle_mode;
using pe::kernels::io_type;

// One rope spec's launch over random binary32 inputs, and pecheck's binary64 reference for it.
struct launch {
  std::vector<float> x, y;
  std::vector<std::int64_t> pos;
  pe::kernels::rotate_tables tables;
  pe::kernels::rotate_args args{};
  std::vector<double> reference;  // correctly rounded binary64 of the exact rotation of x

  launch(const char* spec_text, std::int64_t tokens, std::int64_t heads, std::int64_t max_pos, angle_mode mode, std::uint32_t seed) {
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
    tables = pe::kernels::rotate_tables::of(s, pos);
    reference = pe::run_op<double>("rotate", s, in).at(0).value.data;
    y.assign(x.size(), NAN);
    args = {x.data(), y.data(), pos.data(), tables.inv_freq.data(), tables.turns.data(), tables.factor,
            tokens, heads, dim, s.integer("rotary_dim"), s.choice("layout") == "neox", io_type::f32, mode};
  }
  void run() {
    pe::kernels::run_on_host(args);
  }
};

// The emulated grid hands every work item to exactly one thread, for sizes around a block's.
TEST(host_grid, runs_every_item_once) {
  for (const std::int64_t items : {0, 1, 255, 256, 257, 1000, 4096}) {
    std::vector<int> seen(static_cast<size_t>(items), 0);
    pe::kernels::run_host_grid(items, [&](std::int64_t i) { ++seen[static_cast<size_t>(i)]; });
    for (std::int64_t i = 0; i < items; ++i) EXPECT_EQ(seen[static_cast<size_t>(i)], 1) << "item " << i << " of " << items;
  }
}

// The accurate mode: the angle from the exact turn reduction is within 2^-50 rad, sin and cos
// within 2 binary64 ulps, the products and the sum in binary64: |y - exact| <= ulp32(y) / 2 +
// A (|x_a| + |x_b|) 2^-48 (proofs/precision.kernel_rotate.md). Checked against the correctly rounded
// binary64 reference on every element, at positions up to 2^40 and both ends of int64, for both
// layouts, partial rotary and a YaRN factor. Every element is written (none left NaN).
TEST(rotate_kernel, accurate_mode_is_within_its_bound) {
  for (const char* spec : {"rope(dim=64, layout=neox)", "rope(dim=64, layout=gptj)", "rope(dim=48, rotary_dim=16)",
                           "rope(dim=32, scaling=yarn(factor=8, original_max=2048))"}) {
    launch l(spec, 64, 3, std::int64_t{1} << 40, angle_mode::accurate, 7);
    l.run();
    double worst = 0;
    const std::int64_t dim = l.args.dim, rotary = l.args.rotary_dim;
    for (std::size_t e = 0; e < l.y.size(); ++e) {
      const auto d = static_cast<std::int64_t>(e) % dim;
      const std::size_t row = e - static_cast<std::size_t>(d);
      if (d >= rotary) {
        EXPECT_EQ(l.y[e], l.x[e]) << spec << ": pass-through dim " << d;
        continue;
      }
      // The pair's partner dim, for the |x_a| + |x_b| of the bound.
      const std::int64_t half = rotary / 2;
      const std::int64_t partner = l.args.neox ? (d < half ? d + half : d - half) : (d ^ 1);
      const double n = std::fabs(l.x[e]) + std::fabs(l.x[row + static_cast<std::size_t>(partner)]);
      const double y = l.y[e], want = l.reference[e];
      const double bound = 0.5 * std::ldexp(1.0, std::ilogb(want) - 23) + l.args.factor * n * 0x1p-48 + 0x1p-149;
      worst = std::max(worst, std::fabs(y - want) / bound);
      ASSERT_LE(std::fabs(y - want), bound) << spec << " element " << e << ": " << y << " against " << want;
    }
    std::cout << spec << ": worst fraction of the accurate bound " << worst << "\n";
  }
}

// The fast mode forms float(p) * inv_freq in binary32: at 2^40 its angles are off by radians,
// which the accurate mode's bound catches (so the test above would notice the wrong mode).
TEST(rotate_kernel, fast_mode_is_far_off_at_large_positions) {
  launch l("rope(dim=64)", 32, 1, std::int64_t{1} << 40, angle_mode::fast, 7);
  l.run();
  double worst = 0;
  for (std::size_t e = 0; e < l.y.size(); ++e) worst = std::max(worst, std::fabs(l.y[e] - l.reference[e]));
  EXPECT_GT(worst, 0.1);
}

}  // namespace
