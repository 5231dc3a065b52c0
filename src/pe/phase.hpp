// sin and cos of p * omega_i for any int64 position p, accurate at every position (no naive angle).
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pe/frequency_cache.hpp"
#include "pe/limits.hpp"
#include "pe/fast_kernels.hpp"
#include "pe/mp.hpp"

namespace pe {

// A frequency source: any object with `template <class U> U omega(int i) const` giving the
// exact frequency formula in scalar U. The tables below evaluate it at high precision once
// and then answer sin/cos(p * omega_i).
//
// phase_table<C> for C = compute type:
// - double: omega_i / 2pi is stored as a 192-bit fixed-point fraction (evaluated with MPFR at
//   320 bits). p * omega_i / 2pi mod 1 is then exact integer arithmetic, reduced exactly by
//   quarter turns to |r| <= pi/4, r a double-double (the fast kernels), and sin and cos of it
//   are the fast kernels' double-doubles, rounded where provably correct, else MPFR's: for every
//   |p| < 2^63 correctly rounded (proofs/precision.phase_reduction.md).
// - mp_real: omega_i is evaluated at output bits + 192 guard bits, the angle formed and
//   reduced at that precision by MPFR, and sin/cos rounded to output bits.
// - any other C: the naive formula in C (what generic code would do); used by the archetype.
template <class C>
class phase_table {
 public:
  template <class Freq>
  phase_table(const Freq& f, int n) {
    omega_.reserve(n);
    for (int i = 0; i < n; ++i) omega_.push_back(f.template omega<C>(i));
  }
  std::pair<C, C> sin_cos(std::int64_t p, int i) const {
    using std::cos;
    using std::sin;
    const C angle = C(p) * omega_[i];
    return {sin(angle), cos(angle)};
  }
  std::pair<C, C> sin_cos_wide(std::int64_t p, int i) const { return sin_cos(p, i); }

 private:
  std::vector<C> omega_;
};

// frac(omega / 2pi) on 192 bits (turn_fraction, fast_kernels.hpp), from omega evaluated with
// enough fraction bits (omega_with_fraction_bits).
turn_fraction fraction_of_turn(const mp_real& omega);

// omega_i evaluated with `bits` significant bits plus its binary exponent, so that its
// fractional part in turns stays exact to about 2^-bits even for omega far above 1 (a
// 64-bit first pass finds the exponent; freqs=[1e300] or a factor of 1e-300 stay exact).
template <class Freq>
mp_real omega_with_fraction_bits(const Freq& f, int i, unsigned bits) {
  long exponent = 0;
  {
    mp_working_bits estimate(64);
    const mp_real w = f.template omega<mp_real>(i);
    if (mpfr_regular_p(w.backend().data())) exponent = std::max(0L, static_cast<long>(mpfr_get_exp(w.backend().data())));
  }
  mp_working_bits scope(bits + static_cast<unsigned>(exponent) + 2);
  return f.template omega<mp_real>(i);
}

// What a table is cached under: its kind, the law's key, the pair count and the bits.
template <class Freq>
std::string frequency_table_key(const char* kind, const Freq& f, int n, unsigned bits) {
  return std::string(kind) + "|" + f.cache_key() + "|" + std::to_string(n) + "|" + std::to_string(bits);
}

// compute() for a law without a key; for one with a key, its value computed once per process.
template <class V, class Freq, class Compute>
V cached_for_law(const char* kind, const Freq& f, int n, unsigned bits, const Compute& compute) {
  // Every table of frequencies at MPFR precision passes here: bounded before any is computed.
  check_limit(limit::frequencies, static_cast<std::uint64_t>(n), fmt::format("{} table: frequencies", kind));
  if constexpr (keyed_frequency_law<Freq>) return *cached<V>(frequency_table_key(kind, f, n, bits), compute);
  else return compute();
}

// omega_with_fraction_bits(f, i, bits) for every i < n (cached per law).
template <class Freq>
std::vector<mp_real> omegas_with_fraction_bits(const Freq& f, int n, unsigned bits) {
  return cached_for_law<std::vector<mp_real>>("omegas", f, n, bits, [&] {
    std::vector<mp_real> out;
    out.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) out.push_back(omega_with_fraction_bits(f, i, bits));
    return out;
  });
}

// sin and cos of p * omega in MPFR at omega's precision + 64 bits (p has at most 64).
std::pair<mp_real, mp_real> sin_cos_of_product(std::int64_t p, const mp_real& omega);

// Bits of the wide sin/cos and of the rotation arithmetic built on them, for outputs stored
// in binary formats: 256, so an output survives cancellation down to 2^-190 of its inputs
// (proofs/precision.rotate_wide.md).
inline constexpr unsigned wide_result_bits = 256;

template <>
class phase_table<double> {
 public:
  // f must outlive the table (the wide frequencies are evaluated from it on first use).
  template <class Freq>
  phase_table(const Freq& f, int n)
      : turns_(cached_for_law<std::vector<turn_fraction>>("turns", f, n, 320,
                                                          [&] {
                                                            std::vector<turn_fraction> out;
                                                            for (int i = 0; i < n; ++i) out.push_back(fraction_of_turn(omega_with_fraction_bits(f, i, 320)));
                                                            return out;
                                                          })),
        wide_omega_([&f, n] { return omegas_with_fraction_bits(f, n, wide_result_bits + 128); }) {}
  // RN(sin p omega_i) and RN(cos p omega_i): the fast kernels where they prove the rounding, else
  // sin_cos_wide rounded once (sin_cos_dd.cpp; proofs/precision.fast_rotate.md, "encode").
  std::pair<double, double> sin_cos(std::int64_t p, int i) const;
  const turn_fraction& turns(int i) const { return turns_[i]; }
  const std::vector<turn_fraction>& all_turns() const { return turns_; }
  // At wide_result_bits + 128 bits and more: for rotations whose c x_a - s x_b may cancel. The
  // frequencies are evaluated on first use (binary64 rotate's fast path and encode rarely need
  // them); not thread-safe.
  std::pair<mp_real, mp_real> sin_cos_wide(std::int64_t p, int i) const {
    if (!wide_) wide_ = wide_omega_();
    return sin_cos_of_product(p, (*wide_)[static_cast<std::size_t>(i)]);
  }

 private:
  std::vector<turn_fraction> turns_;
  mutable std::optional<std::vector<mp_real>> wide_;
  std::function<std::vector<mp_real>()> wide_omega_;
};

// Guard bits of the MPFR path: |p| < 2^63 magnifies omega's relative error by up to 2^63,
// and results near a zero of sin/cos, or rotations that cancel, need headroom below the
// output ulp.
inline constexpr unsigned mp_phase_guard_bits = 192;

template <>
class phase_table<mp_real> {
 public:
  template <class Freq>
  phase_table(const Freq& f, int n) : omega_(omegas_with_fraction_bits(f, n, mp_output_bits() + mp_phase_guard_bits)) {}
  std::pair<mp_real, mp_real> sin_cos(std::int64_t p, int i) const;  // rounded to output bits
  std::pair<mp_real, mp_real> sin_cos_wide(std::int64_t p, int i) const { return sin_cos_of_product(p, omega_[i]); }

 private:
  std::vector<mp_real> omega_;
};

}  // namespace pe
