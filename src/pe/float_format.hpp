// Binary floating-point formats (precision and exponent range) and correct rounding into them.
#pragma once
#include <cmath>

#include "pe/mp.hpp"

namespace pe {

// A binary format: `precision` significand bits (implicit bit included), normal exponents
// emin..emax. Subnormals extend below 2^emin down to 2^(emin - precision + 1).
struct float_format {
  const char* name;
  int precision;
  int emin;
  int emax;
};

inline constexpr float_format binary64{"f64", 53, -1022, 1023};
inline constexpr float_format binary32{"f32", 24, -126, 127};
inline constexpr float_format bfloat16{"bf16", 8, -126, 127};
inline constexpr float_format binary16{"f16", 11, -14, 15};

// The largest finite value of `f`, (2^precision - 1) 2^(emax - precision + 1): f16's 65504.
inline double largest_finite(const float_format& f) { return std::ldexp(std::ldexp(1.0, f.precision) - 1.0, f.emax - f.precision + 1); }

// x rounded to nearest, ties to even, into `f` (subnormals, signed zeros, overflow to
// +-Inf, NaN kept), returned as the double holding that exact value. One rounding step
// straight from x: no detour through float, which could round twice.
double round_to_format(double x, const float_format& f);
double round_to_format(const mp_real& x, const float_format& f);

// The spacing of `f` at the magnitude of x: 2^(max(e, emin) - precision + 1), e = floor(log2|x|).
// For x = 0 it is the smallest subnormal.
double ulp_in_format(double x, const float_format& f);
mp_real ulp_in_format(const mp_real& x, const float_format& f);

// Whether the double y lies exactly halfway between two neighbours of `f` (an odd multiple of
// half its spacing there), the one case where rounding y into `f` can differ from rounding the
// value y was rounded from (proofs/precision.fast_rotate.md, "narrower outputs"). Zeros,
// infinities and NaN are not midpoints.
inline bool is_midpoint_in_format(double y, const float_format& f) {
  if (!std::isfinite(y) || y == 0) return false;
  const double halves = y / (ulp_in_format(y, f) / 2);  // a power of two apart: exact
  return std::trunc(halves) == halves && std::fmod(halves, 2.0) != 0;
}

}  // namespace pe
