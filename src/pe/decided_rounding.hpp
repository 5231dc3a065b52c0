// Ziv's rounding of a value computed in MPFR into a stored type: the computed value's rounding where every real near it rounds alike, else the value computed again with more bits.
#pragma once
#include <mpfr.h>

#include <type_traits>

#include "pe/mp.hpp"
#include "pe/scalar.hpp"

namespace pe {

// A value computed at p working bits (a frequency law's pow, a division, a blend; each correctly
// rounded there) is taken to lie within |v| 2^-(p - decided_margin_bits) of the exact value: 2^32
// ulps of room for those few roundings and the cancellation of a blend.
inline constexpr int decided_margin_bits = 32;
// How many times decided_store doubles the working bits before it stores what it has: from
// binary formats' 256 bits up to 8192, which decides any value within 2^-8000 of a rounding
// boundary but not on it (a spec's literal exponents reach 10^-1000, about 2^-3322).
inline constexpr int decided_doublings = 5;

// Whether every real within |v| 2^-(precision of v - decided_margin_bits) of v rounds to the same
// T. Rounding is monotone, so the two ends decide; they are rounded outwards, which only widens
// the interval. Zero and non-finite values are taken as they are.
template <class T>
bool rounding_is_decided(const mp_real& v) {
  if (!isfinite(v) || v == 0) return true;
  mpfr_srcptr x = v.backend().data();
  mp_real radius = abs(v), low = v, high = v;
  mpfr_mul_2si(radius.backend().data(), radius.backend().data(), -(static_cast<long>(mpfr_get_prec(x)) - decided_margin_bits), MPFR_RNDU);
  mpfr_sub(low.backend().data(), x, radius.backend().data(), MPFR_RNDD);
  mpfr_add(high.backend().data(), x, radius.backend().data(), MPFR_RNDU);
  const T a = store_as<T>(low), b = store_as<T>(high);
  if constexpr (std::is_same_v<T, mp_real>) return a == b;
  else return static_cast<double>(a) == static_cast<double>(b);
}

// `wide` (computed at the working bits in force) stored as T, correctly rounded even next to a
// rounding boundary of T (a midpoint, or a 2^-53 step for a rational frequency such as
// 1+1/9007199254740992+1e-300, where the 256-bit value is the midpoint itself): while the
// rounding is not decided, value_at() is called again with twice the working bits, at most
// decided_doublings times. A value exactly on a boundary stays undecided, and its rounding at
// the last precision (ties to even) is the right one.
// A value computed in a type other than mp_real (T itself, for the archetype scalars) is stored
// as store_as stores it: there is no wider value to decide from.
template <class T, class W, class ValueAt>
T decided_store(const W& wide, const ValueAt& value_at) {
  if constexpr (!std::is_same_v<W, mp_real>) {
    return store_as<T>(wide);
  } else {
    mp_real v = wide;
    for (int i = 0; i < decided_doublings && !rounding_is_decided<T>(v); ++i) {
      const mp_working_bits more(2 * static_cast<unsigned>(mpfr_get_prec(v.backend().data())));
      v = value_at();
    }
    return store_as<T>(v);
  }
}

}  // namespace pe
