// sin and cos in double-double for the fast binary64 path (derivation: proofs/precision.fast_rotate.md).
#include "pe/sin_cos_dd.hpp"

#include <array>
#include <cmath>

#include <mpfr.h>

#include "pe/mp.hpp"

namespace pe {
namespace {

// The grid of the table: a = k/1024, k = 0 .. 805 covers |r| <= pi/4 + 2^-20 (pi/4 * 1024 = 804.2).
constexpr int grid = 1024, entries = 806;

struct table {
  std::array<dd, entries> sin_a, cos_a;
  dd minus_sixth, one_24th;
};

// Built once, with MPFR at 256 bits, on first use (a function-local static: thread-safe); the fast
// path never touches MPFR afterwards.
const table& sin_cos_table() {
  static const table t = [] {
    table out;
    mp_working_bits scope(256);
    for (int k = 0; k < entries; ++k) {
      const mp_real a = mp_real(k) / mp_real(grid);
      mp_real s, c;
      mpfr_sin_cos(s.backend().data(), c.backend().data(), a.backend().data(), MPFR_RNDN);
      out.sin_a[static_cast<std::size_t>(k)] = to_dd(s);
      out.cos_a[static_cast<std::size_t>(k)] = to_dd(c);
    }
    out.minus_sixth = to_dd(mp_real(-1) / mp_real(6));
    out.one_24th = to_dd(mp_real(1) / mp_real(24));
    return out;
  }();
  return t;
}

}  // namespace

dd to_dd(const mp_real& x) {
  const double hi = x.convert_to<double>();
  const mp_real rest = x - mp_real(hi);  // exact: x's precision covers hi's bits
  return {hi, rest.convert_to<double>()};
}

sin_cos_pair sin_cos_of_reduced(double hi, double lo) {
  const table& tab = sin_cos_table();
  // r = a + t: a = k/1024 nearest to hi, t = (hi - a) + lo. hi - a is exact (Sterbenz: a/2 <= |hi|
  // <= 2a for k >= 1; a = 0 otherwise), and two_sum keeps t exact as a double-double.
  // Round to nearest by the 1.5 * 2^52 trick (exact for |hi * grid| < 2^51; inlined, unlike nearbyint).
  const double k = (hi * grid + 0x1.8p52) - 0x1.8p52;
  const double a = k / grid;
  const dd t = two_sum(hi - a, lo);
  const dd t2 = mul(t, t);
  const double x = t2.hi;  // t^2 <= 2^-22: the series' higher terms need only binary64
  // sin t = t + t^3 (-1/6 + t^2/120 - t^4/5040); dropped terms below 2^-106.5 |t|.
  const dd sin_t = add(t, mul(mul(t2, t), add(tab.minus_sixth, x * (1.0 / 120 - x / 5040))));
  // cos t = 1 + t^2 (-1/2 + t^2/24 + t^4 (-1/720 + t^2/40320)); dropped terms below 2^-131.
  const dd inner = add(mul(t2, tab.one_24th), x * x * (-1.0 / 720 + x / 40320));
  const dd cos_t = add(mul(t2, add(inner, -0.5)), 1.0);
  // sin(a + t) = sin a cos t + cos a sin t, cos(a + t) = cos a cos t - sin a sin t; sin(-a) = -sin a.
  const auto index = static_cast<std::size_t>(std::fabs(k));
  const dd sin_a = k < 0 ? -tab.sin_a[index] : tab.sin_a[index];
  const dd& cos_a = tab.cos_a[index];
  return {add(mul(sin_a, cos_t), mul(cos_a, sin_t)), add(mul(cos_a, cos_t), -mul(sin_a, sin_t))};
}

sin_cos_pair sin_cos_turns_dd(std::int64_t p, const turn_fraction& f) {
  const reduced_angle r = reduce_turns(p, f);
  const sin_cos_pair reduced = sin_cos_of_reduced(r.hi, r.lo);
  const auto [s, c] = undo_quarter_turns(reduced.s, reduced.c, r);
  return {s, c};
}

}  // namespace pe
