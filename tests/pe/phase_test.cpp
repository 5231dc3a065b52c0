// Tests for src/pe/phase.hpp: sin/cos(p * omega) in binary64 against MPFR at 256 bits, for |p| up to 2^40 and beyond.
#include "pe/phase.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <random>

#include "pe/schemes/sinusoidal.hpp"
#include "support/one_frequency.hpp"
#include "pe/ulp.hpp"

namespace {

using pe::mp_real;

using pe::test::one_frequency;

struct errors {
  double sin_ulps, cos_ulps;
};

errors double_path_error(const one_frequency& f, std::int64_t p) {
  const pe::phase_table<double> fast(f, 1);
  pe::mp_precision scope(256);
  const pe::phase_table<mp_real> exact(f, 1);
  const auto [s, c] = fast.sin_cos(p, 0);
  const auto [se, ce] = exact.sin_cos(p, 0);
  return {pe::error_in_ulps(s, se, pe::binary64), pe::error_in_ulps(c, ce, pe::binary64)};
}

// Bound of the binary64 path: correctly rounded (proofs/precision.phase_reduction.md, the fast
// kernels or MPFR), so within half an ulp; the 256-bit reference is off by 2^-200 ulp at most,
// which the quotient's rounding to binary64 drops.
constexpr double double_path_bound_ulps = 0.5;

// Positions anywhere in [-2^40, 2^40], with extra weight on the hard places: where float stops
// counting integers (2^24), int32 limits (2^31), bf16's 256, and the top of the range.
rc::Gen<std::int64_t> positions() {
  constexpr std::int64_t top = std::int64_t{1} << 40;
  return rc::gen::weightedOneOf<std::int64_t>({
      {4, rc::gen::inRange<std::int64_t>(-top, top + 1)},
      {1, rc::gen::inRange<std::int64_t>(0, 1024)},
      {1, rc::gen::map(rc::gen::inRange<std::int64_t>(-3, 4),
                       [](std::int64_t d) { return (std::int64_t{1} << 24) + d; })},
      {1, rc::gen::map(rc::gen::inRange<std::int64_t>(-3, 4),
                       [](std::int64_t d) { return (std::int64_t{1} << 31) + d; })},
      {1, rc::gen::map(rc::gen::inRange<std::int64_t>(-3, 4), [](std::int64_t d) { return 256 + d; })},
      {1, rc::gen::map(rc::gen::inRange<std::int64_t>(0, 1000), [top](std::int64_t d) { return top - d; })},
  });
}

RC_GTEST_PROP(phase_table, binary64_is_correctly_rounded_against_256_bits, ()) {
  const std::int64_t half = *rc::gen::inRange<std::int64_t>(1, 129);
  const double base = *rc::gen::element(10.0, 500.0, 10000.0, 500000.0, 1000000.0);
  const int i = *rc::gen::inRange<int>(0, static_cast<int>(half));
  const std::int64_t p = *positions();
  RC_CLASSIFY(std::abs(p) > (std::int64_t{1} << 31), "|p| > 2^31");
  RC_CLASSIFY(std::abs(p) > (std::int64_t{1} << 24), "|p| > 2^24");
  const auto e = double_path_error({2 * half, base, i}, p);
  RC_ASSERT(e.sin_ulps <= double_path_bound_ulps);
  RC_ASSERT(e.cos_ulps <= double_path_bound_ulps);
}

// The same bound over a fixed sweep, reporting the worst case seen (Boost.Math style).
TEST(phase_table, worst_error_over_a_sweep_up_to_2_pow_40) {
  std::mt19937_64 rng(1129);
  double worst = 0;
  std::int64_t worst_p = 0;
  int worst_i = 0;
  for (int k = 0; k < 20000; ++k) {
    const std::int64_t p = static_cast<std::int64_t>(rng() >> 23) - (std::int64_t{1} << 40);
    const int i = static_cast<int>(rng() % 64);
    const auto e = double_path_error({128, 10000.0, i}, p);
    if (std::max(e.sin_ulps, e.cos_ulps) > worst) {
      worst = std::max(e.sin_ulps, e.cos_ulps);
      worst_p = p;
      worst_i = i;
    }
  }
  std::cout << "worst binary64 error: " << worst << " ulp at p=" << worst_p << ", i=" << worst_i
            << " (dim=128, base=10000)\n";
  EXPECT_LE(worst, double_path_bound_ulps);
}

// The naive angle double(p) * double(omega) is what the exact reduction replaces: at 2^40 it is
// wrong in the 5th digit. This shows the sweep above would notice a naive implementation.
TEST(phase_table, naive_angle_is_far_off_at_2_pow_40) {
  const one_frequency f{64, 10000.0, 5};
  const std::int64_t p = std::int64_t{1} << 40;
  pe::mp_precision scope(256);
  const pe::phase_table<mp_real> exact(f, 1);
  const double omega = static_cast<double>(f.omega<mp_real>(0));
  const double naive = std::sin(static_cast<double>(p) * omega);
  EXPECT_GT(pe::error_in_ulps(naive, exact.sin_cos(p, 0).first, pe::binary64), 1e6);
  EXPECT_LE(double_path_error(f, p).sin_ulps, double_path_bound_ulps);
}

struct pin {
  std::int64_t p;
  int i;
  const char* sin_value;
  const char* cos_value;
};

// sin/cos(p * 10000^(-2i/64)) to 40 digits, from mpmath 1.3.0 at 90 digits (independent of this code).
const pin pins[] = {
    {std::int64_t{1} << 40, 5, "0.02502541393019260216749751491230131869883", "-0.9996868152864788693722538189631653948277"},
    {2147483647, 0, "-0.724916555144556390548293296339795039874", "-0.6888366918779438346797582230379290318611"},
    {-(std::int64_t{1} << 40), 17, "-0.8094110202800167190357156185619485702211", "0.5872425395432983817636153185193507868687"},
    {std::numeric_limits<std::int64_t>::max(), 3, "-0.9177036911071941016013532414717030892871", "-0.397265572795116080396614487763629880469"},
    {(std::int64_t{1} << 24) + 1, 31, "0.4474167893648268391278329851404607942334", "0.8943255652135133797802840538429286065937"},
    {1000000, 0, "-0.3499935021712929521176524867807714690614", "0.9367521275331447869385325350749187757081"},
};

TEST(phase_table, matches_independent_values_at_hard_positions) {
  for (const auto& pin : pins) {
    const one_frequency f{64, 10000.0, pin.i};
    const pe::phase_table<double> fast(f, 1);
    pe::mp_precision scope(256);
    const pe::phase_table<mp_real> exact(f, 1);
    const mp_real want_sin(pin.sin_value), want_cos(pin.cos_value);
    const auto [s, c] = fast.sin_cos(pin.p, 0);
    EXPECT_LE(pe::error_in_ulps(s, want_sin, pe::binary64), double_path_bound_ulps) << "p=" << pin.p;
    EXPECT_LE(pe::error_in_ulps(c, want_cos, pe::binary64), double_path_bound_ulps) << "p=" << pin.p;
    // The literals carry 40 digits: the 256-bit path must agree to their last digit.
    const auto [se, ce] = exact.sin_cos(pin.p, 0);
    EXPECT_LT(abs(se - want_sin), mp_real("1e-39")) << "p=" << pin.p;
    EXPECT_LT(abs(ce - want_cos), mp_real("1e-39")) << "p=" << pin.p;
  }
}

// The hardest positions for frequency 1 are those closest to a multiple of pi/2, where sin or
// cos is nearly zero: the numerators of the continued-fraction convergents of pi/2 (e.g.
// 66627445592888887 and 2646693125139304345 put sin(p) near 1e-17 and 1e-20). Before the
// quarter-turn reduction these were 6 and 2,460 ulps off. The convergents are computed here
// with MPFR at 1024 bits, independently of the phase code.
std::vector<std::int64_t> convergent_numerators_of_half_pi() {
  pe::mp_precision scope(1024);
  mp_real x = pe::two_pi() / 4;
  mp_real h_prev = 1, h_prev2 = 0;
  std::vector<std::int64_t> out;
  for (int k = 0; k < 80; ++k) {
    const mp_real a = floor(x);
    const mp_real h = a * h_prev + h_prev2;
    if (h >= ldexp(mp_real(1), 63)) break;
    out.push_back(static_cast<std::int64_t>(h));
    h_prev2 = h_prev;
    h_prev = h;
    x = 1 / (x - a);
  }
  return out;
}

TEST(phase_table, near_zeros_of_sin_and_cos_stay_within_the_bound) {
  const auto positions = convergent_numerators_of_half_pi();
  ASSERT_GT(positions.size(), 30u);
  const one_frequency f{2, 10000.0, 0};  // omega = 1
  double worst = 0;
  for (const std::int64_t p : positions) {
    for (const std::int64_t signed_p : {p, -p}) {
      const auto e = double_path_error(f, signed_p);
      worst = std::max({worst, e.sin_ulps, e.cos_ulps});
      EXPECT_LE(e.sin_ulps, double_path_bound_ulps) << "p=" << signed_p;
      EXPECT_LE(e.cos_ulps, double_path_bound_ulps) << "p=" << signed_p;
    }
  }
  std::cout << "worst binary64 error near zeros (" << positions.size() << " convergents of pi/2): " << worst << " ulp\n";
}

TEST(phase_table, position_zero_is_exact_and_negation_flips_sin) {
  const one_frequency f{16, 10000.0, 3};
  const pe::phase_table<double> fast(f, 1);
  EXPECT_EQ(fast.sin_cos(0, 0).first, 0.0);
  EXPECT_EQ(fast.sin_cos(0, 0).second, 1.0);
  for (std::int64_t p : {std::int64_t{1}, std::int64_t{12345}, std::int64_t{1} << 40, std::int64_t{3} << 50}) {
    EXPECT_EQ(fast.sin_cos(-p, 0).first, -fast.sin_cos(p, 0).first) << p;
    EXPECT_EQ(fast.sin_cos(-p, 0).second, fast.sin_cos(p, 0).second) << p;
  }
  // INT64_MIN has no positive twin; it must still be finite and on the unit circle.
  const auto [s, c] = fast.sin_cos(std::numeric_limits<std::int64_t>::min(), 0);
  EXPECT_NEAR(s * s + c * c, 1.0, 4 * std::numeric_limits<double>::epsilon());
}

TEST(fraction_of_turn, stores_omega_over_two_pi_to_192_bits) {
  pe::mp_precision scope(320);
  // omega = 2pi * 3/4 + 2pi * 5 (whole turns drop out): the fraction is exactly 0.75.
  const mp_real omega = pe::two_pi() * mp_real(5.75);
  const auto words = pe::fraction_of_turn(omega);
  EXPECT_EQ(words.word[0], 0xC000000000000000ULL);
  EXPECT_EQ(words.word[1], 0u);
  EXPECT_EQ(words.word[2], 0u);
}

}  // namespace
