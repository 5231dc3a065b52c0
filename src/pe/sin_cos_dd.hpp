// sin and cos of p * omega in double-double, without MPFR: the exact turn reduction, a table and a short series.
#pragma once
#include <cstdint>

#include "pe/double_double.hpp"
#include "pe/mp.hpp"
#include "pe/phase.hpp"

namespace pe {

// x correctly rounded to a double-double: hi = RN(x), lo = RN(x - hi), within 2^-106 relative.
dd to_dd(const mp_real& x);

struct sin_cos_pair {
  dd s, c;
};

// sin and cos of the reduced angle r = hi + lo, |r| <= pi/4 + 2^-20: r = a + t with a = k/1024
// from a table of double-double sin a, cos a (computed once with MPFR, then read-only, so this
// is thread-safe) and |t| <= 2^-11 by its Taylor series. Each within 2^-97.5 relative of
// sin(hi + lo) and cos(hi + lo) (proofs/precision.fast_rotate.md, "sin and cos").
sin_cos_pair sin_cos_of_reduced(double hi, double lo);

// sin and cos of 2pi frac(p f) (f a turn fraction, phase.hpp): reduce_turns, then the above, then
// the quarter turns and the sign undone exactly. Within 2^-97.5 relative plus 2^-123 absolute of
// sin and cos of p omega, for every |p| < 2^63.
sin_cos_pair sin_cos_turns_dd(std::int64_t p, const turn_fraction& f);

}  // namespace pe
