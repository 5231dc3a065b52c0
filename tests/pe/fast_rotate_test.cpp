// Tests for the fast binary64 path (sin_cos_dd.hpp, fast_kernels.hpp), in each flavour this CPU runs: sin and cos against MPFR, and rotate's outputs bit for bit against the exact values rounded once.
#include "pe/fast_kernels.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include "pe/ops.hpp"
#include "pe/sin_cos_dd.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/schemes/sinusoidal.hpp"
#include "support/one_frequency.hpp"
#include "support/random_rope_call.hpp"
#include "pe/spec.hpp"

namespace {

using pe::mp_real;

using pe::test::one_frequency;

// Dekker's kernels everywhere, and the FMA and AVX-512 kernels where this CPU has them (said
// once, so a run without them is visible in the log).
std::vector<const pe::fast_kernels*> flavours() {
  std::vector<const pe::fast_kernels*> out{&pe::dekker_kernels};
  if (const auto* fma = pe::fma_kernels()) out.push_back(fma);
  if (const auto* avx512 = pe::avx512_kernels()) out.push_back(avx512);
  static const bool said = [] {
    if (!pe::fma_kernels()) std::cout << "this CPU (or build) has no FMA kernels: testing Dekker's only\n";
    else if (!pe::avx512_kernels()) std::cout << "this CPU (or build) has no AVX-512 kernels: testing Dekker's and FMA\n";
    return true;
  }();
  (void)said;
  return out;
}

// reduce_turn_rows against MPFR at 512 bits, in every flavour: with q the kernel's quarter turns
// (congruent mod 4 to a q' in -2 .. 2 with |t - q'/4| <= 1/8, t the fraction p F 2^-192 centred
// in [-1/2, 1/2)), |hi + lo - 2pi (t - q'/4)| <= 2^-124 + 2^-103 |2pi (t - q'/4)| (the bound of
// proofs/precision.phase_reduction.md, "Error bound"; without the 2^-124 where |p| = 1 and F's
// last word is 0, whose product is exact), |hi| <= pi/4 + 2^-100, lo a tail of hi,
// and the sign bit set exactly for p < 0. Returns how many angles broke any of these.
int reduction_failures(const std::vector<std::int64_t>& p, const std::vector<pe::turn_fraction>& f) {
  pe::mp_working_bits scope(512);
  const auto n = static_cast<std::int64_t>(p.size());
  int failures = 0;
  for (const auto* kernels : flavours()) {
    std::vector<double> hi(p.size()), lo(p.size());
    std::vector<std::int64_t> quarter(p.size());
    kernels->reduce_turn_rows({n, p.data(), f.data(), hi.data(), lo.data(), quarter.data()});
    for (std::size_t k = 0; k < p.size(); ++k) {
      const mp_real word = pow(mp_real(2), -64);
      const mp_real fraction = (mp_real(f[k].word[0]) + (mp_real(f[k].word[1]) + mp_real(f[k].word[2]) * word) * word) * word;
      const std::uint64_t a = p[k] < 0 ? 0 - static_cast<std::uint64_t>(p[k]) : static_cast<std::uint64_t>(p[k]);
      mp_real t = mp_real(a) * fraction;
      t -= floor(t);
      if (t >= 0.5) t -= 1;
      const std::int64_t q = quarter[k] & 3;
      mp_real best = 1;  // the congruent q' nearest 4t: the reduced turns t - q'/4
      for (std::int64_t candidate = -2; candidate <= 2; ++candidate)
        if ((candidate & 3) == q && abs(t - mp_real(candidate) / 4) < abs(best)) best = t - mp_real(candidate) / 4;
      const mp_real exact = pe::two_pi() * best;
      const double error = abs(mp_real(hi[k]) + mp_real(lo[k]) - exact).convert_to<double>();
      // With |p| = 1 and F's last word 0 the product is exact: no absolute part (step 4's bound).
      const double absolute = (a == 1 && f[k].word[2] == 0) ? 0 : 0x1p-124;
      const bool ok = abs(best) <= mp_real(1) / 8 && std::fabs(hi[k]) <= M_PI / 4 + 0x1p-100 &&
                      error <= absolute + 0x1p-103 * abs(exact).convert_to<double>() && std::fabs(lo[k]) <= 0x1p-53 * std::fabs(hi[k]) &&
                      (quarter[k] >> 2) == (p[k] < 0 ? 1 : 0) && quarter[k] >= 0 && quarter[k] < 8;
      if (!ok && failures++ < 5)
        ADD_FAILURE() << kernels->name << ": p " << p[k] << ", words " << f[k].word[0] << " " << f[k].word[1] << " " << f[k].word[2] << ": hi "
                      << hi[k] << ", lo " << lo[k] << ", quarter " << quarter[k] << ", error " << error;
    }
  }
  return failures;
}

// Every magnitude of the reduced turns X' (p = +-1 and F = X 2^64, so X = q 2^126 + X' exactly),
// with the chunk edges the conversion splits X' at (2^43, 2^86, and sums that cross 2^96, below
// which it is exact), negative X' whose chunks cancel, the eighth-turn ties, and random p and F.
TEST(reduce_turn_rows, is_within_its_bound_of_mpfr) {
  using u128 = unsigned __int128;
  std::vector<std::int64_t> p;
  std::vector<pe::turn_fraction> f;
  const auto add_turns = [&](std::int64_t q, __int128 rest, bool negative) {
    const u128 x = static_cast<u128>(static_cast<__int128>(q)) * (u128{1} << 126) + static_cast<u128>(rest);  // mod 2^128: no signed overflow
    p.push_back(negative ? -1 : 1);
    f.push_back({{static_cast<std::uint64_t>(x >> 64), static_cast<std::uint64_t>(x), 0}});
  };
  std::mt19937_64 rng(20261202);
  for (int width = 0; width <= 125; ++width) {
    const __int128 power = static_cast<__int128>(1) << width;
    for (const __int128 rest : {power, power - 1, power + 1, -power, 1 - power, -power - 1})
      if (rest >= -(static_cast<__int128>(1) << 125) && rest <= static_cast<__int128>(1) << 125) add_turns(static_cast<std::int64_t>(rng() % 4) - 2, rest, rng() & 1);
  }
  for (int i = 0; i < 4000; ++i) {
    const int width = 1 + static_cast<int>(rng() % 125);
    const auto rest = static_cast<__int128>(((static_cast<u128>(rng()) << 64) | rng()) >> (128 - width));
    add_turns(static_cast<std::int64_t>(rng() % 4) - 2, rng() & 1 ? rest : -rest, rng() & 1);
  }
  for (int i = 0; i < 4000; ++i) {
    p.push_back(i == 0 ? std::numeric_limits<std::int64_t>::min() : static_cast<std::int64_t>(rng()) >> (rng() % 64));
    f.push_back({{rng(), rng(), rng()}});
  }
  EXPECT_EQ(reduction_failures(p, f), 0) << p.size() << " angles";
}

// |approx - exact| / (2^-97.5 |exact| + 2^-123): at most 1 where the bound of
// proofs/precision.fast_rotate.md ("sin and cos") holds.
double bound_fraction(const pe::dd& approx, const mp_real& exact) {
  pe::mp_working_bits scope(256);
  const mp_real error = abs(mp_real(approx.hi) + mp_real(approx.lo) - exact);
  return (error / (abs(exact) * std::ldexp(1.0, -97) / std::sqrt(2.0) + std::ldexp(1.0, -123))).convert_to<double>();
}

// sin and cos of p omega at 256 bits from the 384-bit frequency.
std::pair<mp_real, mp_real> exact_sin_cos(const one_frequency& f, std::int64_t p) {
  pe::mp_working_bits scope(256);
  return pe::sin_cos_of_product(p, pe::omega_with_fraction_bits(f, 0, 384));
}

double worst_fraction_at(const one_frequency& f, std::int64_t p) {
  const auto turns = pe::fraction_of_turn(pe::omega_with_fraction_bits(f, 0, 320));
  const auto [s, c] = exact_sin_cos(f, p);
  double worst = 0;
  for (const auto* kernels : flavours()) {
    const auto fast = pe::sin_cos_turns_dd(p, turns, *kernels);
    worst = std::max({worst, bound_fraction(fast.s, s), bound_fraction(fast.c, c)});
    // The vectorised rows give the same values: one angle in a row of nine (two vectors of four
    // and the remainder).
    pe::sin_cos_rows rows;
    const std::vector<std::int64_t> positions(9, p);
    const std::vector<pe::turn_fraction> fractions(9, turns);
    rows.compute(positions, fractions, *kernels);
    for (std::size_t k = 0; k < 9; ++k)
      worst = std::max({worst, bound_fraction({rows.s_hi[k], rows.s_lo[k]}, s), bound_fraction({rows.c_hi[k], rows.c_lo[k]}, c)});
  }
  return worst;
}

RC_GTEST_PROP(sin_cos_dd, within_its_bound_of_mpfr_for_every_position, ()) {
  const auto dim = 2 * *rc::gen::inRange<std::int64_t>(1, 129);
  const one_frequency f{dim, static_cast<double>(*rc::gen::inRange(2, 1000001)), *rc::gen::inRange<int>(0, static_cast<int>(dim / 2))};
  const auto p = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(-2048, 2049), rc::gen::arbitrary<std::int64_t>());
  RC_ASSERT(worst_fraction_at(f, p) <= 1.0);
}

// Angles at every part of the table (a = k/1024 near both ends of each cell, and the quarter-turn
// boundary at pi/4) and near zeros of sin and cos: positions whose reduced angle is tiny.
TEST(sin_cos_dd, holds_at_the_table_edges_and_near_zeros) {
  double worst = 0;
  const one_frequency unit{2, 10000.0, 0};  // omega = 1: the angle is p itself
  for (std::int64_t p = -3000; p <= 3000; ++p) worst = std::max(worst, worst_fraction_at(unit, p));
  // Continued-fraction convergents of pi/2 (proofs/precision.phase_reduction.md): p ~ q pi/2, sin or cos ~ 1e-20.
  for (const std::int64_t p : {std::int64_t{245850922}, std::int64_t{411557987}, std::int64_t{1068966896}, std::int64_t{2646693125139304345}})
    worst = std::max(worst, worst_fraction_at(unit, p));
  std::cout << "worst |error| / bound over the table edges and near zeros: " << worst << "\n";
  EXPECT_LE(worst, 1.0);
}

// round_sin_cos_rows (encode's rounding): where it is certain, RN(sin) and RN(cos) bit for bit
// against the 256-bit values rounded once, in every flavour; returns how many angles it declined.
int expect_rounded_sin_cos_exact(const one_frequency& f, std::int64_t p) {
  const auto turns = pe::fraction_of_turn(pe::omega_with_fraction_bits(f, 0, 320));
  const auto [s, c] = exact_sin_cos(f, p);
  const double sin_rn = s.convert_to<double>(), cos_rn = c.convert_to<double>();
  int declined = 0;
  for (const auto* kernels : flavours()) {
    pe::sin_cos_rows rows;
    const std::vector<std::int64_t> positions(9, p);
    const std::vector<pe::turn_fraction> fractions(9, turns);
    rows.compute(positions, fractions, *kernels);
    std::vector<double> sines(9), cosines(9), certain(9);
    kernels->round_sin_cos_rows({9, rows.s_hi.data(), rows.s_lo.data(), rows.c_hi.data(), rows.c_lo.data(), sines.data(), cosines.data(), certain.data()});
    for (std::size_t k = 0; k < 9; ++k) {
      if (certain[k] == 0.0) {
        ++declined;
        continue;
      }
      EXPECT_EQ(sines[k], sin_rn) << kernels->name << " sin at p = " << p;
      EXPECT_EQ(cosines[k], cos_rn) << kernels->name << " cos at p = " << p;
      EXPECT_EQ(std::signbit(sines[k]), std::signbit(sin_rn)) << kernels->name << " sin's sign at p = " << p;
    }
  }
  return declined;
}

// Every table cell and both signs (omega = 1), random frequencies and positions, and the angles
// near zeros of sin and cos; sin 0 = 0 must be declined (its sign is MPFR's to give).
TEST(round_sin_cos_rows, is_correctly_rounded_wherever_it_answers) {
  const one_frequency unit{2, 10000.0, 0};
  int declined = 0, tried = 0;
  for (std::int64_t p = -3000; p <= 3000; ++p, ++tried) declined += expect_rounded_sin_cos_exact(unit, p) > 0;
  for (const std::int64_t p : {std::int64_t{245850922}, std::int64_t{411557987}, std::int64_t{1068966896}, std::int64_t{2646693125139304345}})
    expect_rounded_sin_cos_exact(unit, p);
  std::mt19937_64 random(7);
  for (int n = 0; n < 300; ++n, ++tried) {
    const auto dim = 2 * static_cast<std::int64_t>(1 + random() % 128);
    const one_frequency f{dim, static_cast<double>(2 + random() % 1000000), static_cast<int>(random() % static_cast<std::uint64_t>(dim / 2))};
    declined += expect_rounded_sin_cos_exact(f, static_cast<std::int64_t>(random())) > 0;
  }
  EXPECT_GT(expect_rounded_sin_cos_exact(unit, 0), 0) << "sin 0 = 0 must be declined";
  // Near-ties are rare (about 2^-44 of the values): a kernel that declines much is broken too.
  EXPECT_LE(declined, tried / 100) << declined << " of " << tried << " angles declined";
}

// rotate<double> against run_op<mp_real> rounded once to binary64, bit for bit.
void expect_rotate_rounds_exactly(const std::string& spec_text, const std::vector<double>& x, const std::vector<std::int64_t>& pos) {
  const pe::spec s = pe::parse_spec(spec_text);
  pe::op_inputs in;
  in.pos = pos;
  const std::int64_t dim = s.integer("dim");
  in.x = pe::tensor<double>({static_cast<std::int64_t>(pos.size()), static_cast<std::int64_t>(x.size()) / dim / static_cast<std::int64_t>(pos.size()), dim});
  in.x.data = x;
  const auto fast = pe::run_op<double>("rotate", s, in).at(0).value;
  pe::mp_precision scope(256);
  const auto exact = pe::run_op<mp_real>("rotate", s, in).at(0).value;
  for (std::size_t e = 0; e < x.size(); ++e) {
    const double rounded = exact.data[e].convert_to<double>();
    RC_ASSERT(std::signbit(fast.data[e]) == std::signbit(rounded));
    RC_ASSERT(fast.data[e] == rounded);
  }
}

RC_GTEST_PROP(fast_rotate, equals_the_exact_value_rounded_once, ()) {
  const auto call = pe::test::random_rope_call(32);
  const auto& [spec, dim, heads, tokens, pos] = call;
  std::vector<double> x;
  for (std::int64_t e = 0; e < tokens * heads * dim; ++e) {
    // Mostly ordinary values, some zeros, signed zeros and extreme magnitudes (those take the MPFR path).
    x.push_back(*rc::gen::weightedOneOf<double>({{8, rc::gen::map(rc::gen::inRange(-1000000, 1000001), [](int v) { return v / 4096.0; })},
                                                 {1, rc::gen::element(0.0, -0.0, 0x1p-1000, -0x1p950, 0x1p-1074)},
                                                 {1, rc::gen::arbitrary<double>()}}));
  }
  for (auto& v : x)
    if (!std::isfinite(v)) v = 1;
  expect_rotate_rounds_exactly(spec, x, pos);
}

// Each flavour's token kernel, called directly: every pair it answers is the exact value rounded
// once (run_op<mp_real> rounded to binary64), and it declines only a few ordinary pairs.
RC_GTEST_PROP(fast_rotate, each_flavour_answers_only_exact_roundings, ()) {
  const auto pairs = *rc::gen::inRange<std::int64_t>(1, 17), heads = *rc::gen::inRange<std::int64_t>(1, 5);
  const std::string spec_text = fmt::format("rope(dim={}, base={}, layout=neox, scaling=yarn(factor=4, original_max=2048))", 2 * pairs,
                                            *rc::gen::inRange(2, 1000001));
  const pe::spec s = pe::parse_spec(spec_text);
  const std::int64_t p = *rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 100000), rc::gen::arbitrary<std::int64_t>());
  pe::op_inputs in;
  in.pos = {p};
  in.x = pe::tensor<double>({1, heads, 2 * pairs});
  for (auto& v : in.x.data) v = *rc::gen::map(rc::gen::inRange(-1000000, 1000001), [](int i) { return i / 4096.0 + 0x1p-20; });
  std::vector<double> exact;
  {
    pe::mp_precision scope(256);
    const auto outputs = pe::run_op<mp_real>("rotate", s, in);
    for (const auto& v : outputs.at(0).value.data) exact.push_back(v.convert_to<double>());
  }
  // The yarn factor as rotate takes it (at rotate's wide precision), and each pair's sin and cos.
  const auto plan = pe::rope_plan(s, pe::call_seq_len(in.pos));
  std::optional<pe::rotation_factor> factor;
  {
    pe::mp_working_bits scope(pe::wide_result_bits);
    factor = pe::rotation_factor_of(plan.freq.attention_factor<mp_real>());
  }
  RC_ASSERT(factor.has_value());
  const pe::phase_table<double> phases(plan.freq, static_cast<int>(pairs));
  std::vector<std::int64_t> dims_a, dims_b;
  for (const auto& pr : plan.pairs) dims_a.push_back(pr.a), dims_b.push_back(pr.b);
  const std::vector<std::int64_t> positions(static_cast<std::size_t>(pairs), p);
  for (const auto* kernels : flavours()) {
    pe::sin_cos_rows rows;
    rows.compute(positions, phases.all_turns(), *kernels);
    std::vector<double> y(in.x.data.size(), std::nan(""));
    std::vector<std::int64_t> declined(static_cast<std::size_t>(heads * pairs));
    std::vector<double> scratch(static_cast<std::size_t>(5 * pairs));
    const std::int64_t count = kernels->rotate_token({rows.c_hi.data(), rows.c_lo.data(), rows.s_hi.data(), rows.s_lo.data(), dims_a.data(),
                                                      dims_b.data(), pairs, heads, 2 * pairs, *factor, in.x.data.data(), y.data(),
                                                      declined.data(), scratch.data()});
    RC_ASSERT(count == 0);  // a decline is about 2^-40 likely per pair for these inputs: none is expected
    std::vector<bool> answered(y.size(), true);
    for (std::int64_t i = 0; i < count; ++i) {
      const std::int64_t h = declined[i] / pairs, k = declined[i] % pairs;
      answered[h * 2 * pairs + dims_a[k]] = answered[h * 2 * pairs + dims_b[k]] = false;
    }
    for (std::size_t e = 0; e < y.size(); ++e)
      if (answered[e]) RC_ASSERT(y[e] == exact[e]);
  }
}

// op matrix at binary64 takes cos and sin from the fast kernels where they prove the rounding: every
// entry is the exact rotation rounded once (run_op<mp_real> rounded to binary64), position 0 included.
RC_GTEST_PROP(fast_rotate, matrix_is_the_exact_rotation_rounded_once, ()) {
  const auto call = pe::test::random_rope_call(32);
  const pe::spec s = pe::parse_spec(call.spec);
  pe::op_inputs in;
  in.pos = {*rc::gen::weightedOneOf<std::int64_t>({{1, rc::gen::just<std::int64_t>(0)}, {9, rc::gen::just(call.pos[0])}})};
  const auto fast = pe::run_op<double>("matrix", s, in).at(0).value;
  pe::mp_precision scope(256);
  const auto exact = pe::run_op<mp_real>("matrix", s, in).at(0).value;
  for (std::size_t e = 0; e < fast.data.size(); ++e) {
    const double rounded = exact.data[e].convert_to<double>();
    RC_ASSERT(std::signbit(fast.data[e]) == std::signbit(rounded));
    RC_ASSERT(fast.data[e] == rounded);
  }
}

// A pair turned onto an axis cancels: x = (cos, sin) of the negated angle, rounded, rotates to
// (~1, ~1e-17). The fast path must see the cancellation and hand the pair to MPFR.
TEST(fast_rotate, a_cancelling_pair_still_rounds_exactly) {
  const pe::spec s = pe::parse_spec("rope(dim=2)");
  std::vector<double> x;
  std::vector<std::int64_t> pos;
  for (std::int64_t p = 1; p <= 200; ++p) {
    pos.push_back(p);
    x.push_back(std::cos(static_cast<double>(-p)));
    x.push_back(std::sin(static_cast<double>(-p)));
  }
  pe::op_inputs in;
  in.pos = pos;
  in.x = pe::tensor<double>({static_cast<std::int64_t>(pos.size()), 1, 2});
  in.x.data = x;
  const auto fast = pe::run_op<double>("rotate", s, in).at(0).value;
  pe::mp_precision scope(256);
  const auto exact = pe::run_op<mp_real>("rotate", s, in).at(0).value;
  for (std::size_t e = 0; e < x.size(); ++e) EXPECT_EQ(fast.data[e], exact.data[e].convert_to<double>()) << "element " << e;
  // The second component is the cancellation: far below its inputs.
  EXPECT_LT(std::fabs(fast.data[1]), 1e-15);
}

// rotate_token on one pair of one head (dims 0 and 1) by the angle whose sine and cosine are
// `terms`: the outputs, and whether the kernel answered (did not decline the pair).
pe::rotated_pair rotate_one_pair(const pe::fast_kernels& kernels, const pe::sin_cos_pair& terms, const pe::rotation_factor& factor, double xa,
                                 double xb) {
  const std::int64_t a = 0, b = 1;
  const double x[2] = {xa, xb};
  double y[2] = {}, scratch[5] = {};
  std::int64_t declined[1] = {};
  const std::int64_t count = kernels.rotate_token(
      {&terms.c.hi, &terms.c.lo, &terms.s.hi, &terms.s.lo, &a, &b, 1, 1, 2, factor, x, y, declined, scratch});
  return {y[0], y[1], count == 0};
}

// The fast rotation refuses what it cannot prove, and rounds what it can, in each flavour.
TEST(fast_rotate, refuses_zeros_and_extreme_magnitudes) {
  const pe::sin_cos_pair angle_zero{{0.0, 0.0}, {1.0, 0.0}};
  const pe::rotation_factor one{{1.0, 0.0}, true};
  for (const auto* kernels : flavours()) {
    SCOPED_TRACE(kernels->name);
    EXPECT_FALSE(rotate_one_pair(*kernels, angle_zero, one, 0.0, 0.0).certain);
    EXPECT_FALSE(rotate_one_pair(*kernels, angle_zero, one, 0x1p950, 1.0).certain);
    EXPECT_FALSE(rotate_one_pair(*kernels, angle_zero, one, 0x1p-950, 0.0).certain);
    // Inputs past 2^900 are declined for their magnitude alone (both outputs would otherwise be
    // provable: the cases above are declined for a zero or a tiny output too).
    EXPECT_FALSE(rotate_one_pair(*kernels, angle_zero, one, 0x1p901, 0x1p901).certain);
    EXPECT_FALSE(rotate_one_pair(*kernels, angle_zero, one, 0x1p-901, 0x1p-902).certain);
    const auto r = rotate_one_pair(*kernels, angle_zero, one, 0.75, -2.5);
    ASSERT_TRUE(r.certain);
    EXPECT_EQ(r.a, 0.75);
    EXPECT_EQ(r.b, -2.5);
    // A value exactly halfway between two doubles cannot be proven (the error bound straddles the
    // tie): 1 + 2^-53 as 1 rotated by angle zero with lo = 2^-53 in the cosine.
    const pe::sin_cos_pair tie{{0.0, 0.0}, {1.0, 0x1p-53}};
    EXPECT_FALSE(rotate_one_pair(*kernels, tie, one, 1.0, 1.0).certain);
  }
}

}  // namespace
