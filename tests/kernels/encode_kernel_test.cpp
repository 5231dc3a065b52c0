// Tests for src/kernels/encode_kernel.hpp through the host emulation of the grid: every element of sinusoidal encode against pecheck's correctly rounded binary64 reference, within the bounds of proofs/precision.kernel_encode_bias.md.
#include "kernels/encode_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"
#include "kernels/host_grid.hpp"
#include "kernels/host_tables.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace {

using pe::kernels::angle_mode;
using pe::kernels::io_type;
namespace kt = pe::kernels::testing;

// Both layouts' halves (concat, fairseq), interleaved, several dims and bases, dim 2.
const char* const specs[] = {"sinusoidal(dim=8)", "sinusoidal(dim=64, base=500000, layout=concat)", "sinusoidal(dim=16, layout=fairseq)",
                             "sinusoidal(dim=512)", "sinusoidal(dim=2, base=2)", "sinusoidal(dim=6, base=1.5, layout=concat)"};

// One launch at positions pos, and pecheck's binary64 reference for it.
struct launch {
  pe::spec s;
  pe::kernels::encode_tables tables;
  kt::io_buffer out;
  pe::kernels::encode_args args{};
  std::vector<double> reference;  // correctly rounded binary64 of sin and cos

  launch(const char* spec_text, const std::vector<std::int64_t>& pos, io_type io, angle_mode mode)
      : s(pe::parse_spec(spec_text)), tables(pe::kernels::encode_tables::of(s)),
        out(io, static_cast<std::int64_t>(pos.size()) * s.integer("dim")) {
    pe::op_inputs in;
    in.pos = pos;
    reference = pe::run_op<double>("encode", s, in).at(0).value.data;
    args = {out.data(), pos.data(), tables.slots.data(), tables.inv_freq.data(), tables.turns.data(),
            static_cast<std::int64_t>(pos.size()), s.integer("dim"), static_cast<std::int64_t>(tables.inv_freq.size()), io, mode};
    pe::kernels::run_on_host(args);
  }
};

// The accurate mode: sin and cos from the exact turn reduction in binary64 are within 2^-49.69 of
// the exact values; with the reference's own rounding (2^-54) and the rounding to the output
// type, |y - ref| <= storage_rounding + 2^-49 (the proof's statement, a factor 1.54 above the
// derived 10.36 u64). Every element of every spec, I/O type and position (0, 1, 2^31 - 1, 2^31,
// 2^53 + 1, both ends of int64, random ones up to 2^40 and over all of int64); every element is
// written (none left NaN).
TEST(encode_kernel, accurate_mode_is_within_its_bound) {
  std::mt19937_64 rng(15);
  for (const io_type io : kt::all_io) {
    double worst = 0, excess = 0;  // excess: beyond the rounding terms, as a fraction of 2^-49
    std::int64_t misrounded = 0, checked = 0;
    for (const char* spec : specs) {
      const std::vector<std::int64_t> pos = kt::drawn_positions(rng, 60);
      const launch l(spec, pos, io, angle_mode::accurate);
      for (std::int64_t e = 0; e < l.out.size(); ++e) {
        const double y = l.out.at(e), want = l.reference[static_cast<std::size_t>(e)];
        ASSERT_FALSE(std::isnan(y)) << spec << ": element " << e << " was not written";
        const double bound = kt::storage_rounding(io, want) + 0x1p-49;
        worst = std::max(worst, std::fabs(y - want) / bound);
        excess = std::max(excess, (std::fabs(y - want) - kt::storage_rounding(io, want)) / 0x1p-49);
        misrounded += y != kt::io_buffer::of(io, {want}).at(0);
        ++checked;
        ASSERT_LE(std::fabs(y - want), bound) << spec << " at " << kt::io_name(io) << ", position " << pos[static_cast<std::size_t>(e / l.args.dim)]
                                              << ", column " << e % l.args.dim << ": " << y << " against " << want;
      }
    }
    std::cout << kt::io_name(io) << ": worst fraction of the accurate bound " << worst << " (beyond rounding: " << excess << " of 2^-49), " << misrounded << " of " << checked
              << " values not the reference's rounding\n";
  }
}

// The fast mode at |p| <= 2^12: float(p) exact, omega rounded to binary32 and the product rounded
// (2.01 u |theta| together), the one-turn reduction (two fused roundings and the correction's one
// where k missed the nearest turn, 3 * 2^-23, and 2^-47.05 per turn), glibc's binary32 sin and cos
// (1 ulp, 2^-24 below 1): |y - ref| <= storage_rounding + 2^-24 + 3 * 2^-23 + (2.01 u + 2^-49.7)
// |theta| (proofs/precision.kernel_encode_bias.md). The host's sin and cos only: the GPU's
// __sincosf is derived in proofs/precision.kernel_rotate.md and measured by scripts/gpu-check.
TEST(encode_kernel, fast_mode_is_within_its_bound_at_small_positions) {
  std::mt19937_64 rng(16);
  for (const io_type io : kt::all_io) {
    double worst = 0;
    for (const char* spec : specs) {
      std::vector<std::int64_t> pos = {0, 1, -1, 4096, -4096};
      for (int k = 0; k < 60; ++k) pos.push_back(static_cast<std::int64_t>(rng() % 8193) - 4096);
      const launch l(spec, pos, io, angle_mode::fast);
      std::vector<double> omega(static_cast<std::size_t>(l.args.dim));  // per column, its pair's binary32 frequency
      for (std::size_t k = 0; k < l.tables.slots.size(); ++k) omega[static_cast<std::size_t>(l.tables.slots[k])] = l.tables.inv_freq[k / 2];
      for (std::int64_t e = 0; e < l.out.size(); ++e) {
        // |theta| from the binary32 frequency: within a factor 1 + 2^-23 of the exact one, negligible here.
        const double theta = std::fabs(static_cast<double>(pos[static_cast<std::size_t>(e / l.args.dim)]) * omega[static_cast<std::size_t>(e % l.args.dim)]);
        const double y = l.out.at(e), want = l.reference[static_cast<std::size_t>(e)];
        const double bound = kt::storage_rounding(io, want) + 0x1p-24 + 3 * 0x1p-23 + (2.01 * 0x1p-24 + 0x1p-49) * theta;
        worst = std::max(worst, std::fabs(y - want) / bound);
        ASSERT_LE(std::fabs(y - want), bound) << spec << " at " << kt::io_name(io) << ", element " << e << ": " << y << " against " << want;
      }
    }
    std::cout << kt::io_name(io) << ": worst fraction of the fast bound below 2^12 " << worst << "\n";
  }
}

// At 2^40 the fast mode's binary32 angle is off by radians, which the accurate bound catches: the
// test above tells the modes apart.
TEST(encode_kernel, fast_mode_is_far_off_at_large_positions) {
  std::vector<std::int64_t> pos;
  for (int k = 0; k < 32; ++k) pos.push_back((std::int64_t{1} << 40) + 977 * k);
  const launch l("sinusoidal(dim=64)", pos, io_type::f32, angle_mode::fast);
  double worst = 0;
  for (std::int64_t e = 0; e < l.out.size(); ++e) worst = std::max(worst, std::fabs(l.out.at(e) - l.reference[static_cast<std::size_t>(e)]));
  EXPECT_GT(worst, 0.1);
}

// The host's sine and cosine columns cover every column once, in each layout.
TEST(encode_kernel, slots_cover_every_column_once) {
  for (const char* spec : specs) {
    const pe::spec s = pe::parse_spec(spec);
    const auto tables = pe::kernels::encode_tables::of(s);
    std::vector<int> seen(static_cast<std::size_t>(s.integer("dim")), 0);
    for (const std::int64_t c : tables.slots) ++seen.at(static_cast<std::size_t>(c));
    for (std::size_t c = 0; c < seen.size(); ++c) EXPECT_EQ(seen[c], 1) << spec << " column " << c;
  }
}

}  // namespace
