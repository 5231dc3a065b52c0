// Error measures: ulp distance within a dtype, error in ulps against an exact value, relative/absolute error.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "pe/half.hpp"
#include "pe/mp.hpp"

namespace pe {

namespace detail {
// Maps a sign-magnitude bit pattern onto a line where adjacent values differ by one and
// +0 and -0 meet at 0.
inline std::int64_t ordered(std::uint64_t bits, int width) {
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  const auto magnitude = static_cast<std::int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude : magnitude;
}
inline std::uint64_t bits_of(double x) { return std::bit_cast<std::uint64_t>(x); }
inline std::uint64_t bits_of(float x) { return std::bit_cast<std::uint32_t>(x); }
template <int E, int M>
std::uint64_t bits_of(small_float<E, M> x) { return x.bits(); }
inline bool is_nan(double x) { return std::isnan(x); }
inline bool is_nan(float x) { return std::isnan(x); }
template <int E, int M>
bool is_nan(small_float<E, M> x) { return std::isnan(static_cast<double>(x)); }
}  // namespace detail

// How many representable values of the dtype lie between a and b (0 when equal, +0 == -0;
// 1 for neighbours; counts across zero and into the infinities). NaN on either side gives
// UINT64_MAX, so NaN must be handled before any error metric.
template <class D>
std::uint64_t ulp_distance(D a, D b) {
  if (detail::is_nan(a) || detail::is_nan(b)) return std::numeric_limits<std::uint64_t>::max();
  constexpr int width = 8 * sizeof(D);
  const std::int64_t ka = detail::ordered(detail::bits_of(a), width);
  const std::int64_t kb = detail::ordered(detail::bits_of(b), width);
  return ka > kb ? static_cast<std::uint64_t>(ka - kb) : static_cast<std::uint64_t>(kb - ka);
}

// |approx - exact| in units of the format's ulp at the exact value: the Boost.Math way of
// reporting accuracy. NaN or Inf on either side gives +Inf unless both are the same Inf.
inline double error_in_ulps(double approx, const mp_real& exact, const float_format& f) {
  if (std::isnan(approx) || boost::multiprecision::isnan(exact)) return std::numeric_limits<double>::infinity();
  if (std::isinf(approx) || boost::multiprecision::isinf(exact)) {
    return (std::isinf(approx) && boost::multiprecision::isinf(exact) &&
            std::signbit(approx) == (exact < 0))
               ? 0.0
               : std::numeric_limits<double>::infinity();
  }
  const mp_real diff = abs(mp_real(approx) - exact);
  return static_cast<double>(diff / ulp_in_format(exact, f));
}

// |approx - exact| / |exact|; 0 when both are 0, +Inf when only exact is 0.
template <class R>
R relative_error(const R& approx, const R& exact) {
  using std::abs;
  if (exact == R(0)) return approx == R(0) ? R(0) : R(std::numeric_limits<double>::infinity());
  return abs(approx - exact) / abs(exact);
}

template <class R>
R absolute_error(const R& approx, const R& exact) {
  using std::abs;
  return abs(approx - exact);
}

}  // namespace pe
