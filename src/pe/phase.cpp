// Exact argument reduction for sin/cos(p * omega): fixed-point turns for double, guard bits for MPFR.
#include "pe/phase.hpp"

#include <cmath>
#include <gmp.h>

namespace pe {

turn_fraction fraction_of_turn(const mp_real& omega) {
  // nu = frac(omega / 2pi) * 2^192, rounded to an integer; the dropped integer part of
  // omega / 2pi contributes whole turns only, since p is an integer. omega carries enough
  // bits for its fraction (omega_with_fraction_bits); the division keeps them.
  mp_working_bits scope(bits_of(omega));
  mp_real nu = omega / two_pi();
  nu -= floor(nu);
  mpfr_mul_2ui(nu.backend().data(), nu.backend().data(), 192, MPFR_RNDN);
  mpz_t z;
  mpz_init(z);
  mpfr_get_z(z, nu.backend().data(), MPFR_RNDN);
  turn_fraction words{};
  // Word k holds bits [64 (2 - k), 64 (3 - k)) of z; 2^192 itself (rounding up) wraps to 0.
  for (int k = 0; k < 3; ++k) {
    mpz_t w;
    mpz_init(w);
    mpz_tdiv_q_2exp(w, z, 64 * (2 - k));
    mpz_tdiv_r_2exp(w, w, 64);
    std::uint64_t word = 0;
    mpz_export(&word, nullptr, -1, sizeof word, 0, 0, w);
    words[k] = word;
    mpz_clear(w);
  }
  mpz_clear(z);
  return words;
}

reduced_angle reduce_turns(std::int64_t p, const turn_fraction& f) {
  using u128 = unsigned __int128;
  // |p| as unsigned (also for INT64_MIN); sin(-x) = -sin(x) and cos(-x) = cos(x) give the sign
  // at the end, so the two signs are exactly symmetric.
  const std::uint64_t a = p < 0 ? 0 - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  // frac(a * f) on 192 bits: word weights 2^-64, 2^-128, 2^-192; integer parts drop out.
  const u128 t0 = static_cast<u128>(a) * f[0];
  const u128 t1 = static_cast<u128>(a) * f[1];
  const u128 t2 = static_cast<u128>(a) * f[2];
  const u128 mid = static_cast<u128>(static_cast<std::uint64_t>(t1)) + static_cast<std::uint64_t>(t2 >> 64);
  const std::uint64_t w1 = static_cast<std::uint64_t>(mid);
  const std::uint64_t w0 = static_cast<std::uint64_t>(t0) + static_cast<std::uint64_t>(t1 >> 64) +
                           static_cast<std::uint64_t>(mid >> 64);
  // The top 128 bits, read as a signed number, are the fraction centred in [-1/2, 1/2); the
  // dropped low half of a * f[2] is below 2^-128 turns.
  const u128 turns = (static_cast<u128>(w0) << 64) | w1;
  // Quarter-turn reduction, exact on the integer: q = round(4 t), t' = t - q/4 in [-1/8, 1/8].
  // sin and cos are then evaluated at |r| <= pi/4, so a result near zero comes from a small r
  // held to full relative precision, never from cancellation between sin(h) and cos(h) l.
  const auto centred = static_cast<__int128>(turns);
  const int q = static_cast<int>(centred >> 126) + static_cast<int>((turns >> 125) & 1);  // -2 .. 2
  const auto rest = static_cast<__int128>(turns - static_cast<u128>(static_cast<__int128>(q)) * (u128{1} << 126));
  // Split into a double-double scaled by 2^-128: |rest| <= 2^125, so hi converts back exactly.
  const double hi = static_cast<double>(rest);
  const double lo = static_cast<double>(rest - static_cast<__int128>(hi));
  const double turn_hi = std::ldexp(hi, -128);
  const double turn_lo = std::ldexp(lo, -128);
  // 2pi as a double-double: 6.283185307179586 + 2.4492935982947064e-16.
  constexpr double two_pi_hi = 6.283185307179586232;
  constexpr double two_pi_lo = 2.4492935982947064e-16;
  const double r_hi0 = turn_hi * two_pi_hi;
  const double r_err = std::fma(turn_hi, two_pi_hi, -r_hi0);
  const double r_lo0 = r_err + (turn_hi * two_pi_lo + turn_lo * two_pi_hi);
  const double r_hi = r_hi0 + r_lo0;
  return {r_hi, r_lo0 - (r_hi - r_hi0), (q + 4) % 4, p < 0};
}

std::pair<double, double> sin_cos_turns(std::int64_t p, const turn_fraction& f) {
  const reduced_angle a = reduce_turns(p, f);
  // sin(h + l) = sin h cos l + cos h sin l, with |l| <= ulp(h)/2 so cos l = 1 - O(2^-106).
  const double s_h = std::sin(a.hi);
  const double c_h = std::cos(a.hi);
  return undo_quarter_turns(std::fma(c_h, a.lo, s_h), std::fma(-s_h, a.lo, c_h), a);
}

std::pair<mp_real, mp_real> sin_cos_of_product(std::int64_t p, const mp_real& omega) {
  mp_working_bits scope(bits_of(omega) + 64);
  const mp_real angle = mp_real(p) * omega;  // p is exact; the product keeps every bit
  mp_real s, c;
  mpfr_sin_cos(s.backend().data(), c.backend().data(), angle.backend().data(), MPFR_RNDN);
  return {s, c};
}

std::pair<mp_real, mp_real> phase_table<mp_real>::sin_cos(std::int64_t p, int i) const {
  const auto [s, c] = sin_cos_wide(p, i);
  return {round_to_bits(s, mp_output_bits()), round_to_bits(c, mp_output_bits())};
}

}  // namespace pe
