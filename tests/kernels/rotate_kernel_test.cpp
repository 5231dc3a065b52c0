// Tests for src/kernels/rotate_kernel.hpp through the host emulation of the grid: coverage of the work items, pass-through, layouts, and the accurate mode's bound against pecheck's binary64 reference.
#include "kernels/rotate_kernel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include "kernels/angles.hpp"
#include "kernels/every_word_launch.hpp"
#include "kernels/host_grid.hpp"
#include "kernels/rotate_launch.hpp"

namespace {

using pe::kernels::angle_mode;
using pe::kernels::io_type;

using pe::kernels::testing::check_accurate_bound;

// A rotate_launch run by the host emulation of the grid.
struct launch : pe::kernels::testing::rotate_launch {
  using rotate_launch::rotate_launch;
  void run() { pe::kernels::run_on_host(args); }
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
    check_accurate_bound(l, l.y, "host emulation");
  }
}

// A work item turns one pair in each head of a group of heads_per_item (8) heads with one sine
// and cosine: head counts below, at and past one group and two, with a partial last group, leave
// no element unwritten (the launch starts them NaN), none written twice into another head's place,
// and every one within the accurate bound (the gate draws 1 to 4 heads, one group, so this test is
// where the groups are checked).
TEST(rotate_kernel, every_group_of_heads_is_turned_whole) {
  static_assert(pe::kernels::heads_per_item == 8, "the head counts below straddle groups of 8");
  for (const char* spec : {"rope(dim=48, rotary_dim=16, layout=neox)", "rope(dim=20, layout=gptj)"})
    for (const std::int64_t heads : {1, 7, 8, 9, 16, 17}) {
      launch l(spec, 5, heads, 1 << 20, angle_mode::accurate, 11);
      l.run();
      SCOPED_TRACE(heads);
      check_accurate_bound(l, l.y, "host emulation");
    }
}

// f16 and bf16 I/O on every 16-bit word: loaded exactly, A x rounded once to binary32 and then to
// nearest even, as pecheck's fp16 and bf16 round it (every_word_launch.hpp; the GPU's cvt path is
// held to the same in cuda_plugin_test.cpp).
TEST(rotate_kernel, sixteen_bit_io_loads_and_rounds_every_word) {
  for (const io_type io : {io_type::f16, io_type::bf16}) {
    pe::kernels::testing::every_word_launch l(io);
    ASSERT_GT(l.tables.factor, 1.2);  // a factor that needs rounding, or the stores would only copy
    ASSERT_LT(l.tables.factor, 1.21);
    pe::kernels::run_on_host(l.args);
    l.check(l.y, "host emulation");
  }
}

// within_one_turn, the fast mode's reduction: for angles in every binade from 2^-2 to 2^25, of
// either sign, the result lies in [-pi_f, pi_f] (pi_f = 3.14159274f), the interval where the GPU's
// __sincosf has a documented bound, and within three roundings (2^-23 each below 2^23, 2^-22 up to
// 2^25) plus 2^-49.7 |angle| of the exact angle mod 2pi (proofs/precision.kernel_rotate.md, "The
// fast mode on the GPU", step 2; the reference in 64-bit long double, whose 2pi is off by 2^-66).
TEST(rotate_kernel, one_turn_reduction_lands_within_pi_and_its_bound) {
  constexpr long double two_pi = 6.283185307179586476925286766559L;
  std::mt19937 rng(3);
  double worst = 0;
  for (int e = -2; e < 25; ++e) {
    std::uniform_real_distribution<float> draw(std::ldexp(1.0f, e), std::ldexp(1.0f, e + 1));
    for (int k = 0; k < 4000; ++k) {
      const float angle = k % 2 ? draw(rng) : -draw(rng);
      const float r = pe::kernels::within_one_turn(angle);
      ASSERT_LE(std::fabs(r), pe::kernels::pi_f) << "angle " << angle << " reduced to " << r;
      const long double a = angle, exact = a - two_pi * std::rint(a / two_pi);
      long double miss = static_cast<long double>(r) - exact;
      miss -= two_pi * std::rint(miss / two_pi);  // r and exact may name the same point a turn apart
      const double bound = 3 * (std::fabs(angle) < 0x1p23f ? 0x1p-23 : 0x1p-22) + std::exp2(-49.7) * std::fabs(angle);
      worst = std::max(worst, static_cast<double>(std::fabs(miss)) / bound);
      ASSERT_LE(static_cast<double>(std::fabs(miss)), bound) << "angle " << angle << " reduced to " << r;
    }
  }
  std::cout << "one-turn reduction: worst fraction of its bound " << worst << "\n";
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
