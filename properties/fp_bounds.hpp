// Floating-point error bounds the laws' tolerances are built from (derived in proofs/).
#pragma once
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "pe/mp.hpp"

namespace pe::props {

// The unit roundoff u of the arithmetic the laws run in: 2^-53 for binary64, 2^-p for MPFR at
// the precision in force (every stored output is within u |value| of its exact value).
template <class T>
double unit_roundoff() {
  if constexpr (std::is_same_v<T, mp_real>) return std::ldexp(1.0, -static_cast<int>(mp_output_bits()));
  else if constexpr (std::is_same_v<T, float>) return std::ldexp(1.0, -24);
  else return std::ldexp(1.0, -53);
}

// Higham's gamma_n = n u / (1 - n u): a sum or dot product of n terms computed in any order
// is within gamma_n * sum |terms| of the exact one (Higham, Accuracy and Stability, 3.1).
inline double gamma(double n, double u) { return n * u / (1 - n * u); }

// How far a against b goes past an allowance of 2u max(|a_e|, |b_e|) per element, as a multiple
// of that allowance (0 when equal): for laws whose two sides are the same exact value rounded
// once each. A tensor-wide allowance would let a large entry hide a small entry's error.
template <class T, class Tensor>
double excess_over_two_roundings(const Tensor& a, const Tensor& b) {
  using std::abs;
  double worst = 0;
  if (a.data.size() != b.data.size()) return INFINITY;
  for (size_t e = 0; e < a.data.size(); ++e) {
    const T diff = abs(T(a.data[e] - b.data[e]));
    if (diff == 0) continue;
    const T scale = std::max(abs(a.data[e]), abs(b.data[e]));
    worst = std::max(worst, static_cast<double>(diff / (T(2 * unit_roundoff<T>()) * scale)));
  }
  return worst;
}

// A value of T as double (the residuals and bounds are reported in binary64).
template <class T>
double as_double(const T& x) {
  if constexpr (std::is_same_v<T, mp_real>) return x.template convert_to<double>();
  else return static_cast<double>(x);
}

// |a - b| / max(|a|, |b|), the difference formed in T; 0 when both are 0.
template <class T>
double relative_difference(const T& a, const T& b) {
  const double scale = std::max(std::abs(as_double(a)), std::abs(as_double(b)));
  return scale == 0 ? 0 : std::abs(as_double(T(a - b))) / scale;
}

}  // namespace pe::props
