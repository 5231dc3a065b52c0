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
    words.word[k] = word;
    mpz_clear(w);
  }
  mpz_clear(z);
  return words;
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
