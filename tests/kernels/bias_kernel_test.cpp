// Tests for src/kernels/bias_kernel.hpp through the host emulation of the grid: ALiBi against pecheck's binary64 reference within the bound of proofs/precision.kernel_encode_bias.md, and T5's buckets and lookups exactly.
#include "kernels/bias_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>
#include <vector>

#include "kernel_test_support.hpp"
#include "kernels/bias_tables.hpp"
#include "kernels/host_grid.hpp"
#include "pe/ops.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/t5.hpp"
#include "pe/spec.hpp"

namespace {

using pe::kernels::io_type;
namespace kt = pe::kernels::testing;

// pecheck's binary64 bias for qpos x kpos (correctly rounded from 192 bits or a table entry).
std::vector<double> reference_bias(const pe::spec& s, const std::vector<std::int64_t>& qpos, const std::vector<std::int64_t>& kpos) {
  pe::op_inputs in;
  in.qpos = qpos, in.kpos = kpos;
  return pe::run_op<double>("bias", s, in).at(0).value.data;
}

// One ALiBi launch over qpos x kpos.
struct alibi_launch {
  std::vector<double> slopes;
  kt::io_buffer out;
  pe::kernels::alibi_args args{};
  alibi_launch(const pe::spec& s, const std::vector<std::int64_t>& qpos, const std::vector<std::int64_t>& kpos, io_type io)
      : slopes(pe::kernels::alibi_slope_table(s)),
        out(io, static_cast<std::int64_t>(slopes.size() * qpos.size() * kpos.size())) {
    args = {out.data(), qpos.data(), kpos.data(), slopes.data(), static_cast<std::int64_t>(slopes.size()),
            static_cast<std::int64_t>(qpos.size()), static_cast<std::int64_t>(kpos.size()), s.boolean("causal"), io};
    pe::kernels::run_on_host(args);
  }
};

// Head counts: powers of two and not (the paper's interleaving: 3, 5, 12, 24), both forms.
const char* const alibi_specs[] = {"alibi(heads=1)", "alibi(heads=2)", "alibi(heads=3)", "alibi(heads=5, causal=false)", "alibi(heads=8)",
                                   "alibi(heads=8, causal=false)", "alibi(heads=12)", "alibi(heads=12, causal=false)", "alibi(heads=24)",
                                   "alibi(heads=64, causal=false)"};

// slope_h (binary64, correctly rounded) times the distance (binary64, exact below 2^53), rounded
// once: within 3 u64 (and a hair) of the exact bias, the reference within u64/2 of it, so
// |y - ref| <= storage_rounding + 2^-50 |ref| (slack 1.4). f16 overflows past 65504 like the
// correct rounding does (Inf of the bias's sign). Distances from 0 to 2^64 - 1 (both ends of
// int64 as query and key); every element written.
TEST(alibi_kernel, is_within_its_bound) {
  std::mt19937_64 rng(151);
  for (const io_type io : kt::all_io) {
    double worst = 0, excess = 0;  // excess: beyond the rounding terms, as a fraction of 2^-50 |ref|
    std::int64_t checked = 0, overflowed = 0;
    for (const char* spec : alibi_specs) {
      const pe::spec s = pe::parse_spec(spec);
      const auto qpos = kt::drawn_positions(rng, 12), kpos = kt::drawn_positions(rng, 12);
      const alibi_launch l(s, qpos, kpos, io);
      const auto want = reference_bias(s, qpos, kpos);
      for (std::int64_t e = 0; e < l.out.size(); ++e) {
        const double y = l.out.at(e), r = want[static_cast<std::size_t>(e)];
        ASSERT_FALSE(std::isnan(y)) << spec << ": element " << e << " was not written";
        if (io == io_type::f16 && std::fabs(r) >= 65520) {
          EXPECT_EQ(y, std::copysign(INFINITY, r)) << spec << " element " << e;
          ++overflowed;
          continue;
        }
        const double bound = kt::storage_rounding(io, r) + 0x1p-50 * std::fabs(r);
        worst = std::max(worst, std::fabs(y - r) / bound);
        if (r != 0) excess = std::max(excess, (std::fabs(y - r) - kt::storage_rounding(io, r)) / (0x1p-50 * std::fabs(r)));
        ++checked;
        ASSERT_LE(std::fabs(y - r), bound) << spec << " at " << kt::io_name(io) << ", element " << e << ": " << y << " against " << r;
      }
    }
    std::cout << kt::io_name(io) << ": worst fraction of the ALiBi bound " << worst << " (beyond rounding: " << excess << " of 2^-50 |ref|) over "
              << checked << " values, " << overflowed << " more overflowing f16 to Inf\n";
  }
}

// Where the slope is a power of two (heads a power of two: 2^(-8h/n) with n | 8h for n <= 8) and
// the distance below 2^53, the binary64 product is exact: the result is the correct rounding, and
// distance 0 gives +0 (never -0) in both forms.
TEST(alibi_kernel, is_correctly_rounded_where_the_product_is_exact) {
  std::mt19937_64 rng(152);
  for (const char* spec : {"alibi(heads=8)", "alibi(heads=4, causal=false)"}) {
    const pe::spec s = pe::parse_spec(spec);
    std::vector<std::int64_t> qpos = {0, 5, -7}, kpos = {0, 5, -7};
    for (int k = 0; k < 40; ++k) qpos.push_back(static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 52)) - (std::int64_t{1} << 51));
    for (int k = 0; k < 40; ++k) kpos.push_back(static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 52)) - (std::int64_t{1} << 51));
    const alibi_launch l(s, qpos, kpos, io_type::f32);
    const auto want = reference_bias(s, qpos, kpos);
    for (std::int64_t e = 0; e < l.out.size(); ++e) {
      const double y = l.out.at(e), r = want[static_cast<std::size_t>(e)];
      ASSERT_EQ(y, static_cast<double>(static_cast<float>(r))) << spec << " element " << e;
      if (r == 0) {
        EXPECT_FALSE(std::signbit(y)) << spec << " element " << e << " is -0";
      }
    }
  }
}

// One T5 launch: its bucket steps from the reference's hook, the table the gate would pass (the
// reference's bias_table rounded to io).
struct t5_launch {
  pe::kernels::bucket_tables steps;
  kt::io_buffer table, out;
  pe::kernels::t5_args args{};
  t5_launch(const pe::spec& s, const std::vector<std::int64_t>& qpos, const std::vector<std::int64_t>& kpos, io_type io)
      : steps(pe::kernels::bucket_tables::of(s)), table(kt::io_buffer::of(io, pe::behaviour_of(s).bias_table(s).data)),
        out(io, s.integer("heads") * static_cast<std::int64_t>(qpos.size() * kpos.size())) {
    args = {out.data(), table.data(), qpos.data(), kpos.data(), steps.starts.data(), steps.buckets.data(), steps.before_count,
            steps.after_count, s.integer("buckets"), s.integer("heads"), static_cast<std::int64_t>(qpos.size()),
            static_cast<std::int64_t>(kpos.size()), io};
  }
};

// Defaults, the decoder form, several heads, buckets left empty (max_distance 9 with 8 exact
// buckets per sign jumps from bucket 8 to 15), the smallest tables, and a long log range.
const char* const t5_specs[] = {"t5()",
                                "t5(bidirectional=false, heads=2)",
                                "t5(buckets=64, max_distance=256, heads=3)",
                                "t5(buckets=32, max_distance=9)",
                                "t5(buckets=4, max_distance=2)",
                                "t5(buckets=2, max_distance=2, bidirectional=false)",
                                "t5(buckets=256, max_distance=1099511627776, heads=2)"};

// The reference's key - query, saturated at the ends of int64 as t5_bias does.
std::int64_t saturated_rel(std::int64_t q, std::int64_t k) {
  std::int64_t rel = 0;
  if (__builtin_sub_overflow(k, q, &rel)) rel = k > q ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return rel;
}

// The kernel's bucket is the reference's (t5_bucket, decided in integers) at every distance
// 0 .. 3 max_distance (capped at 2^16) on both sides, at every bucket's first distance and the
// one before it, and at random and extreme query and key pairs (distances up to 2^64 - 1).
TEST(t5_kernel, buckets_are_the_references) {
  std::mt19937_64 rng(153);
  for (const char* spec : t5_specs) {
    const pe::spec s = pe::parse_spec(spec);
    const t5_launch l(s, {}, {}, io_type::f32);
    const auto want = [&](std::int64_t q, std::int64_t k) {
      return pe::t5_bucket(saturated_rel(q, k), s.integer("buckets"), s.integer("max_distance"), s.boolean("bidirectional"));
    };
    std::int64_t checked = 0;
    const auto check = [&](std::int64_t q, std::int64_t k) {
      ASSERT_EQ(pe::kernels::t5_bucket_of(l.args, q, k), want(q, k)) << spec << ": query " << q << ", key " << k;
      ++checked;
    };
    const std::int64_t sweep = std::min<std::int64_t>(3 * s.integer("max_distance"), 1 << 16);
    for (std::int64_t n = 0; n <= sweep; ++n) check(0, n), check(0, -n), check(n, 0);
    for (const std::uint64_t start : l.steps.starts) {
      const auto n = static_cast<std::int64_t>(std::min<std::uint64_t>(start, std::numeric_limits<std::int64_t>::max()));
      check(0, n), check(0, n - 1), check(n, 0), check(n - 1, 0);
    }
    const auto ends = kt::edge_positions();
    for (const std::int64_t q : ends)
      for (const std::int64_t k : ends) check(q, k);
    for (int k = 0; k < 20000; ++k) check(static_cast<std::int64_t>(rng()), static_cast<std::int64_t>(rng()));
    for (int k = 0; k < 20000; ++k) {
      const auto q = static_cast<std::int64_t>(rng());
      check(q, q + static_cast<std::int64_t>(rng() % (2 * static_cast<std::uint64_t>(sweep) + 1)) - sweep);
    }
    std::cout << spec << ": " << l.steps.starts.size() << " bucket steps, " << checked << " distances checked\n";
  }
}

// The bias is the table's entry [bucket, h], copied bit for bit in every I/O type: equal to the
// reference's entry rounded to that type, every element written.
TEST(t5_kernel, bias_copies_the_table_entry) {
  std::mt19937_64 rng(154);
  for (const io_type io : kt::all_io)
    for (const char* spec : t5_specs) {
      const pe::spec s = pe::parse_spec(spec);
      const auto qpos = kt::drawn_positions(rng, 12), kpos = kt::drawn_positions(rng, 12);
      t5_launch l(s, qpos, kpos, io);
      pe::kernels::run_on_host(l.args);
      const auto want = kt::io_buffer::of(io, reference_bias(s, qpos, kpos));
      for (std::int64_t e = 0; e < l.out.size(); ++e)
        ASSERT_EQ(l.out.at(e), want.at(e)) << spec << " at " << kt::io_name(io) << ", element " << e;
    }
}

}  // namespace
