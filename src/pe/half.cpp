// Correct rounding into binary formats, and the bit layouts of bf16 and fp16.
#include "pe/half.hpp"

#include <cmath>
#include <limits>

namespace pe {

double round_to_format(double x, const float_format& f) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0) return x;
  // Quantum of the result: the ulp at x's binade, floored at the subnormal spacing.
  const int q = std::max(std::ilogb(x), f.emin) - (f.precision - 1);
  // x * 2^-q is exact (|m| < 2^precision, far from under/overflow); nearbyint rounds
  // to nearest-even in the default rounding mode.
  const double m = std::nearbyint(std::ldexp(x, -q));
  const double y = std::ldexp(m, q);
  if (std::fabs(y) > largest_finite(f)) return std::copysign(std::numeric_limits<double>::infinity(), x);
  return y == 0.0 ? std::copysign(0.0, x) : y;
}

double round_to_format(const mp_real& x, const float_format& f) {
  const mpfr_srcptr px = x.backend().data();
  if (mpfr_nan_p(px)) return std::copysign(std::numeric_limits<double>::quiet_NaN(), mpfr_signbit(px) ? -1.0 : 1.0);
  if (mpfr_inf_p(px) || mpfr_zero_p(px)) return mpfr_get_d(px, MPFR_RNDN);
  // MPFR writes x = m * 2^E with 0.5 <= |m| < 1, so floor(log2|x|) = E - 1.
  const long e = static_cast<long>(mpfr_get_exp(px)) - 1;
  if (e > f.emax + 1) return std::copysign(std::numeric_limits<double>::infinity(), mpfr_get_d(px, MPFR_RNDN));
  const long q = std::max(e, static_cast<long>(f.emin)) - (f.precision - 1);
  mpfr_t m;
  mpfr_init2(m, mpfr_get_prec(px));
  mpfr_mul_2si(m, px, -q, MPFR_RNDN);  // exact: same precision, power-of-two scale
  mpfr_rint(m, m, MPFR_RNDN);          // nearest integer, ties to even
  const double y = std::ldexp(mpfr_get_d(m, MPFR_RNDN), static_cast<int>(q));  // m < 2^precision: exact
  const bool negative = mpfr_signbit(px);
  mpfr_clear(m);
  if (std::fabs(y) > largest_finite(f)) {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  return y == 0.0 ? (negative ? -0.0 : 0.0) : y;
}

double ulp_in_format(double x, const float_format& f) {
  const int e = (x == 0.0 || !std::isfinite(x)) ? f.emin : std::max(std::ilogb(x), f.emin);
  return std::ldexp(1.0, e - f.precision + 1);
}

mp_real ulp_in_format(const mp_real& x, const float_format& f) {
  const mpfr_srcptr px = x.backend().data();
  long e = f.emin;
  if (mpfr_regular_p(px)) e = std::max(static_cast<long>(mpfr_get_exp(px)) - 1, e);
  mp_real r = 1;
  mpfr_mul_2si(r.backend().data(), r.backend().data(), e - f.precision + 1, MPFR_RNDN);
  return r;
}

template <int ExpBits, int MantBits>
std::uint16_t small_float<ExpBits, MantBits>::encode(double y) {
  const std::uint16_t sign = std::signbit(y) ? 0x8000 : 0;
  constexpr std::uint16_t exp_all_ones = ((1u << ExpBits) - 1) << MantBits;
  if (std::isnan(y)) return sign | exp_all_ones | (1u << (MantBits - 1));
  if (std::isinf(y)) return sign | exp_all_ones;
  if (y == 0.0) return sign;
  const double a = std::fabs(y);
  const int e = std::ilogb(a);
  if (e < format.emin) {  // subnormal: a = mant * 2^(emin - MantBits)
    return sign | static_cast<std::uint16_t>(std::ldexp(a, MantBits - format.emin));
  }
  const auto mant = static_cast<std::uint16_t>(std::ldexp(a, MantBits - e) - std::ldexp(1.0, MantBits));
  return sign | static_cast<std::uint16_t>((e + bias) << MantBits) | mant;
}

template <int ExpBits, int MantBits>
double small_float<ExpBits, MantBits>::decode(std::uint16_t b) {
  const double sign = (b & 0x8000) ? -1.0 : 1.0;
  const int biased = (b >> MantBits) & ((1 << ExpBits) - 1);
  const int mant = b & ((1 << MantBits) - 1);
  if (biased == (1 << ExpBits) - 1) {
    return mant ? std::copysign(std::numeric_limits<double>::quiet_NaN(), sign)
                : sign * std::numeric_limits<double>::infinity();
  }
  if (biased == 0) return sign * std::ldexp(mant, format.emin - MantBits);
  return sign * std::ldexp(mant + (1 << MantBits), biased - bias - MantBits);
}

template class small_float<8, 7>;
template class small_float<5, 10>;

}  // namespace pe
