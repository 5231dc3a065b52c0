// The fast binary64 kernels' code, compiled once per flavour by fast_kernels_fma.cpp, fast_kernels_avx512.cpp and fast_kernels_dekker.cpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "pe/double_double.hpp"
#include "pe/fast_kernels.hpp"

namespace pe {
namespace {  // internal linkage: each flavour's file has its own copy

// The table point nearest the reduced angle hi: a = k/1024 and its sine (signed) and cosine.
struct table_point {
  double a;
  dd sin_a, cos_a;
};
[[gnu::always_inline]] inline table_point nearest_table_point(double hi, const sin_cos_table& tab) {
  constexpr double grid = sin_cos_table::grid;
  // Round to nearest by the 1.5 * 2^52 trick (exact for |hi * grid| < 2^51; inlined, unlike nearbyint).
  const double k = (hi * grid + 0x1.8p52) - 0x1.8p52;
  const auto index = static_cast<int>(std::fabs(k));
  // sin(-a) = -sin a, as an exact product by +-1: a branch on the sign of a random angle had
  // mispredicted half the time (k is never -0, so k = 0 keeps sin 0 = +0).
  const double sign = std::copysign(1.0, k);
  const dd& sin_a = tab.sin_a[index];
  return {k / grid, {sign * sin_a.hi, sign * sin_a.lo}, tab.cos_a[index]};
}

// sin and cos of the reduced angle r = hi + lo, |r| <= pi/4 + 2^-20: r = a + t with a the table
// point nearest hi and |t| <= 2^-11 by its Taylor series. Each within 2^-97.5 relative of
// sin(hi + lo) and cos(hi + lo) (proofs/precision.fast_rotate.md, "sin and cos"). Branch-free.
[[gnu::always_inline]] inline sin_cos_pair sin_cos_near(double hi, double lo, const table_point& pt, const dd& minus_sixth, const dd& one_24th) {
  // t = (hi - a) + lo: hi - a is exact (Sterbenz: a/2 <= |hi| <= 2a for k >= 1; a = 0 otherwise),
  // and two_sum keeps t exact as a double-double.
  const dd t = two_sum(hi - pt.a, lo);
  const dd t2 = mul(t, t);
  const double x = t2.hi;  // t^2 <= 2^-22: the series' higher terms need only binary64
  // sin t = t + t^3 (-1/6 + t^2/120 - t^4/5040); dropped terms below 2^-106.5 |t|.
  const dd sin_t = add(t, mul(mul(t2, t), add(minus_sixth, x * (1.0 / 120 - x / 5040))));
  // cos t = 1 + t^2 (-1/2 + t^2/24 + t^4 (-1/720 + t^2/40320)); dropped terms below 2^-131.
  const dd inner = add(mul(t2, one_24th), x * x * (-1.0 / 720 + x / 40320));
  const dd cos_t = add(mul(t2, add(inner, -0.5)), 1.0);
  // sin(a + t) = sin a cos t + cos a sin t, cos(a + t) = cos a cos t - sin a sin t.
  return {add(mul(pt.sin_a, cos_t), mul(pt.cos_a, sin_t)), add(mul(pt.cos_a, cos_t), -mul(pt.sin_a, sin_t))};
}

sin_cos_pair sin_cos_of_reduced(double hi, double lo, const sin_cos_table& tab) {
  return sin_cos_near(hi, lo, nearest_table_point(hi, tab), tab.minus_sixth, tab.one_24th);
}

// sin_cos_near over rows (the table points already looked up): no branches, no table reads and
// no aliasing (restrict), so the compiler vectorises it.
[[gnu::noinline]] void sin_cos_near_rows(std::int64_t n, const double* __restrict hi, const double* __restrict lo,
                                         const double* __restrict a, const double* __restrict sa_hi, const double* __restrict sa_lo,
                                         const double* __restrict ca_hi, const double* __restrict ca_lo, dd minus_sixth,
                                         dd one_24th, double* __restrict s_hi, double* __restrict s_lo, double* __restrict c_hi,
                                         double* __restrict c_lo) {
  for (std::int64_t k = 0; k < n; ++k) {
    const sin_cos_pair sc = sin_cos_near(hi[k], lo[k], {a[k], {sa_hi[k], sa_lo[k]}, {ca_hi[k], ca_lo[k]}}, minus_sixth, one_24th);
    s_hi[k] = sc.s.hi, s_lo[k] = sc.s.lo, c_hi[k] = sc.c.hi, c_lo[k] = sc.c.lo;
  }
}

void sin_cos_rows(const sin_cos_rows_job& job, const sin_cos_table& tab) {
  const std::int64_t n = job.n;
  double *a = job.scratch, *sa_hi = a + n, *sa_lo = a + 2 * n, *ca_hi = a + 3 * n, *ca_lo = a + 4 * n;
  for (std::int64_t k = 0; k < n; ++k) {
    const table_point pt = nearest_table_point(job.hi[k], tab);
    a[k] = pt.a, sa_hi[k] = pt.sin_a.hi, sa_lo[k] = pt.sin_a.lo, ca_hi[k] = pt.cos_a.hi, ca_lo[k] = pt.cos_a.lo;
  }
  sin_cos_near_rows(n, job.hi, job.lo, a, sa_hi, sa_lo, ca_hi, ca_lo, tab.minus_sixth, tab.one_24th, job.s_hi, job.s_lo, job.c_hi,
                    job.c_lo);
}

// Whether RN(exact) = z.hi for every exact value within `error` of z = hi + lo: |lo| + error
// below the half-spacing on lo's side of hi (the spacing below is half as large when |hi| is a
// power of two; with lo = 0 that smaller side counts). False for |hi| outside 2^-960 .. 2^1000,
// where the error model does not hold (proofs/precision.fast_rotate.md, "Rounding only what is
// certain").
[[gnu::always_inline]] inline bool certainly_rounds(const dd& z, double error) {
  const double h = std::fabs(z.hi);
  const bool in_range = (h >= 0x1p-960) & (h <= 0x1p1000);
  std::uint64_t bits;
  std::memcpy(&bits, &h, sizeof bits);
  // 2^e for h in [2^e, 2^(e+1)) (h is normal here): the spacing above h is 2^(e-52).
  const std::uint64_t power_bits = bits & 0x7ff0000000000000u;
  double power;
  std::memcpy(&power, &power_bits, sizeof power);
  const bool outward = (z.lo != 0) & ((z.lo > 0) == (z.hi > 0));
  const bool below_is_finer = !outward & (power_bits == bits);  // toward zero from a power of two
  const double room = power * (below_is_finer ? 0x1p-54 : 0x1p-53);
  // Bitwise & rather than &&: no branches, so that the loops over pairs vectorise.
  return in_range & (std::fabs(z.lo) + error < room);
}

// sin and cos with their heads split once for every head's products (Dekker's product; with
// FMA the split is never read).
struct rotation_terms {
  dd c, s;
  split_double c_head, s_head;
};

// u x - v z as a double-double, u and v double-doubles with split heads: the heads' products
// exactly, their difference exactly (two_sum), and every tail (the products' low parts, u.lo x,
// v.lo z) summed in binary64: within 10 u^2 (|u x| + |v z|) of the exact value
// (proofs/precision.fast_rotate.md, "The rotation").
[[gnu::always_inline]] inline dd cross_difference(const dd& u, const split_double& u_head, const split_double& x, const dd& v, const split_double& v_head,
                    const split_double& z) {
  const dd p = two_prod(u_head, x), q = two_prod(v_head, z);
  const dd head = two_sum(p.hi, -q.hi);
  const double tail = head.lo + ((p.lo - q.lo) + (u.lo * x.value - v.lo * z.value));
  return two_sum(head.hi, tail);
}

// 2^-97 (1 + 2^-26): the bound's coefficient of |A| N, N = |x_a| + |x_b| (proofs/precision.fast_rotate.md).
constexpr double rotation_error_per_input = 0x1.0000004p-97;

// y_a and y_b of one pair (heads only) and whether both are certain. Branch-free, so that the loop
// over pairs vectorises: inputs outside 2^-900 .. 2^900 are computed anyway (inf or NaN at worst)
// and marked uncertain.
template <bool Scaled>
[[gnu::always_inline]] inline rotated_pair rotate_terms(const rotation_terms& r, const rotation_factor& f, double xa, double xb) {
  const double n = std::fabs(xa) + std::fabs(xb);
  const bool in_range = (n >= 0x1p-900) & (n <= 0x1p900);
  const split_double a = split(xa), b = split(xb), minus_b = {-xb, -b.high, -b.low};
  dd ya = cross_difference(r.c, r.c_head, a, r.s, r.s_head, b), yb = cross_difference(r.s, r.s_head, a, r.c, r.c_head, minus_b);
  double scale = 1;
  if constexpr (Scaled) {
    ya = mul(f.value, ya), yb = mul(f.value, yb);
    scale = std::fabs(f.value.hi);
  }
  const double shared = scale * rotation_error_per_input * n;
  const bool certain = in_range & certainly_rounds(ya, shared + 0x1p-100 * std::fabs(ya.hi)) &
                       certainly_rounds(yb, shared + 0x1p-100 * std::fabs(yb.hi));
  return {ya.hi, yb.hi, certain};
}

// Every pair of one head from rows into rows: no branches, gathers or scattered stores, and no
// aliasing (restrict), so the compiler vectorises it.
template <bool Scaled>
[[gnu::noinline]] void rotate_rows(std::int64_t pairs, const rotation_factor& factor, const double* __restrict c_hi,
                                   const double* __restrict c_lo, const double* __restrict s_hi, const double* __restrict s_lo,
                                   const double* __restrict x_a, const double* __restrict x_b, double* __restrict y_a,
                                   double* __restrict y_b, double* __restrict certain) {
  for (std::int64_t k = 0; k < pairs; ++k) {
    const rotation_terms r{{c_hi[k], c_lo[k]}, {s_hi[k], s_lo[k]}, split(c_hi[k]), split(s_hi[k])};
    const rotated_pair out = rotate_terms<Scaled>(r, factor, x_a[k], x_b[k]);
    y_a[k] = out.a, y_b[k] = out.b, certain[k] = out.certain ? 1.0 : 0.0;
  }
}

// Per head: the inputs gathered into rows, rotate_rows, and the outputs stored at their dims with
// the uncertain pairs listed.
template <bool Scaled>
std::int64_t rotate_token_as(const token_rotation& job) {
  const std::int64_t pairs = job.pairs;
  double* const row = job.scratch;
  double *x_a = row, *x_b = row + pairs, *y_a = row + 2 * pairs, *y_b = row + 3 * pairs, *certain = row + 4 * pairs;
  std::int64_t declined = 0;
  for (std::int64_t h = 0; h < job.heads; ++h) {
    const double* x = job.x + h * job.dim;
    double* y = job.y + h * job.dim;
    for (std::int64_t k = 0; k < pairs; ++k) x_a[k] = x[job.a[k]], x_b[k] = x[job.b[k]];
    rotate_rows<Scaled>(pairs, job.factor, job.c_hi, job.c_lo, job.s_hi, job.s_lo, x_a, x_b, y_a, y_b, certain);
    for (std::int64_t k = 0; k < pairs; ++k) {
      y[job.a[k]] = y_a[k], y[job.b[k]] = y_b[k];
      job.declined[declined] = h * pairs + k;
      declined += certain[k] == 0.0;
    }
  }
  return declined;
}

std::int64_t rotate_token(const token_rotation& job) { return job.factor.one ? rotate_token_as<false>(job) : rotate_token_as<true>(job); }

// What certainly_rounds may allow for sin_cos_rows' values z against the exact v: within
// 2^-97.5 |v| + 2^-123 (proofs/precision.fast_rotate.md, "sin and cos"), and |v| <= |z.hi| (1 + 2^-52)
// + that error, so within 2^-97 |z.hi| + 2^-122 ("encode").
[[gnu::always_inline]] inline double sin_cos_error(const dd& z) { return 0x1p-97 * std::fabs(z.hi) + 0x1p-122; }

// round_sin_cos_rows' loop: no branches and no aliasing (restrict), so the compiler vectorises it.
[[gnu::noinline]] void round_rows(std::int64_t n, const double* __restrict s_hi, const double* __restrict s_lo, const double* __restrict c_hi,
                                  const double* __restrict c_lo, double* __restrict sin_out, double* __restrict cos_out,
                                  double* __restrict certain) {
  for (std::int64_t k = 0; k < n; ++k) {
    const dd s{s_hi[k], s_lo[k]}, c{c_hi[k], c_lo[k]};
    sin_out[k] = s.hi, cos_out[k] = c.hi;
    certain[k] = certainly_rounds(s, sin_cos_error(s)) & certainly_rounds(c, sin_cos_error(c)) ? 1.0 : 0.0;
  }
}

void round_sin_cos_rows(const rounded_sin_cos_job& job) {
  round_rows(job.n, job.s_hi, job.s_lo, job.c_hi, job.c_lo, job.sin_out, job.cos_out, job.certain);
}

constexpr fast_kernels kernels_of_this_flavour(const char* name) {
  return {name, &sin_cos_of_reduced, &sin_cos_rows, &rotate_token, &round_sin_cos_rows};
}

}  // namespace
}  // namespace pe
