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

// The high and low words of the 128-bit product a b from the four products of 32-bit halves: the
// loops over pairs vectorise these (a vector unit multiplies 32-bit halves into 64 bits), not a
// 64 x 64 -> 128-bit product.
struct wide_product {
  std::uint64_t high, low;
};
[[gnu::always_inline]] inline wide_product multiply_wide(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t half = 0xffffffffu;
  const std::uint64_t ll = (a & half) * (b & half), lh = (a & half) * (b >> 32), hl = (a >> 32) * (b & half), hh = (a >> 32) * (b >> 32);
  const std::uint64_t middle = (ll >> 32) + (lh & half) + (hl & half);  // below 3 * 2^32: no overflow
  return {hh + (lh >> 32) + (hl >> 32) + (middle >> 32), (middle << 32) | (ll & half)};
}

// x as a double, exactly: for 0 <= x < 2^52 (unsigned_exactly) and |x| < 2^51 (signed_exactly),
// by the bits of 2^52 + x (or 1.5 * 2^52 + x) minus that constant. The baseline and AVX2 have no
// vector conversion of 64-bit integers; this one vectorises everywhere.
[[gnu::always_inline]] inline double unsigned_exactly(std::uint64_t x) {
  const std::uint64_t bits = x | 0x4330000000000000u;  // 2^52 + x
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d - 0x1p52;
}
[[gnu::always_inline]] inline double signed_exactly(std::int64_t x) {
  const std::uint64_t bits = static_cast<std::uint64_t>(x) + 0x4338000000000000u;  // 1.5 * 2^52 + x
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d - 0x1.8p52;
}

// One angle's exact reduction (proofs/precision.phase_reduction.md, "Method"): 2pi times the turns
// hi + lo, |hi| <= pi/4 (+ 2^-100), and the quarter turns (bits 0-1) and the sign (bit 2) to undo.
// Integer and binary64 operations only, no branches, so that reduce_rows vectorises.
struct turn_angle {
  double hi, lo;
  std::int64_t quarter;
};
[[gnu::always_inline]] inline turn_angle reduce_turns(std::int64_t p, const turn_fraction& f) {
  // |p| as unsigned (also for INT64_MIN); sin(-x) = -sin(x) and cos(-x) = cos(x) give the sign
  // at the end, so the two signs are exactly symmetric.
  const std::uint64_t a = p < 0 ? 0 - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  // frac(a F 2^-192) to 128 bits (w0, w1), F = f.word[0] 2^128 + f.word[1] 2^64 + f.word[2]: the
  // integer part drops out and so does the low word of a f.word[2], whose carry is in its high word.
  const std::uint64_t h2 = multiply_wide(a, f.word[2]).high;
  const wide_product t1 = multiply_wide(a, f.word[1]);
  const std::uint64_t w1 = t1.low + h2;
  const std::uint64_t w0 = a * f.word[0] + t1.high + static_cast<std::uint64_t>(w1 < h2);
  // (w0, w1) read as a signed number is the fraction centred in [-1/2, 1/2). Quarter turns,
  // exact on the integer: q = round(4 t) from the top three bits, X' = X - q 2^126 changes the top
  // word only, and |X'| <= 2^125 (t - q/4 in [-1/8, 1/8]).
  const std::int64_t q = (static_cast<std::int64_t>(w0) >> 62) + static_cast<std::int64_t>((w0 >> 61) & 1);  // -2 .. 2
  const std::uint64_t top = w0 - (static_cast<std::uint64_t>(q) << 62);
  // X' 2^-128 = v2 + v1 + v0 in three chunks that convert exactly: the signed top 42 bits, then
  // 43 and 43 unsigned (each scaled by a power of two, exactly).
  const double v2 = signed_exactly(static_cast<std::int64_t>(top) >> 22) * 0x1p-42;
  const double v1 = unsigned_exactly(((top & 0x3fffffu) << 21) | (w1 >> 43)) * 0x1p-85;
  const double v0 = unsigned_exactly(w1 & 0x7ffffffffffu) * 0x1p-128;
  // Their sum as a double-double: three exact two_sums and one rounding (of the two tails' sum),
  // within (1 + 2^-50) 2^-106 |hi| of X' 2^-128, with |lo| <= ulp(hi) / 2.
  const dd s = two_sum(v2, v1), t = two_sum(s.lo, v0), h = two_sum(s.hi, t.hi);
  const dd turns = fast_two_sum(h.hi, h.lo + t.lo);
  // To radians: 2pi as a double-double (6.283185307179586 + 2.4492935982947064e-16), the head's
  // product exactly and the tails' in binary64.
  constexpr double two_pi_hi = 6.283185307179586232, two_pi_lo = 2.4492935982947064e-16;
  const dd head = two_prod(turns.hi, two_pi_hi);
  const dd r = fast_two_sum(head.hi, head.lo + (turns.hi * two_pi_lo + turns.lo * two_pi_hi));
  return {r.hi, r.lo, (q & 3) | (static_cast<std::int64_t>(p < 0) << 2)};
}

// reduce_turns over rows: no branches and no aliasing (restrict), so the compiler vectorises it
// for AVX2 and AVX-512 (at the baseline ISA, two lanes without a 64-bit multiply, GCC keeps it
// scalar).
[[gnu::noinline]] void reduce_rows(std::int64_t n, const std::int64_t* __restrict p, const turn_fraction* __restrict f, double* __restrict hi,
                                   double* __restrict lo, std::int64_t* __restrict quarter) {
  for (std::int64_t k = 0; k < n; ++k) {
    const turn_angle r = reduce_turns(p[k], f[k]);
    hi[k] = r.hi, lo[k] = r.lo, quarter[k] = r.quarter;
  }
}

void reduce_turn_rows(const turn_reduction_job& job) { reduce_rows(job.n, job.p, job.f, job.hi, job.lo, job.quarter); }

// x with its sign bit flipped where `flip` has it set: an exact product by +-1 on the bits.
[[gnu::always_inline]] inline double flip_sign(double x, std::uint64_t flip) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits ^= flip;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
// a where mask is all zeros, b where it is all ones.
[[gnu::always_inline]] inline double select_bits(double a, double b, std::uint64_t mask) {
  std::uint64_t a_bits, b_bits;
  std::memcpy(&a_bits, &a, sizeof a_bits);
  std::memcpy(&b_bits, &b, sizeof b_bits);
  const std::uint64_t bits = (a_bits & ~mask) | (b_bits & mask);
  double out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

// sin and cos of r + q pi/2, sin negated for a negative position, from those of r, in place: a swap
// on odd q and exact sign changes on heads and tails alike (sin: - for q = 2, 3; cos: - for
// q = 1, 2). Bit operations only, no branches (a random quarter mispredicts most of the time), so
// the compiler vectorises it.
[[gnu::noinline]] void undo_quarter_rows(std::int64_t n, const std::int64_t* __restrict quarter, double* __restrict s_hi,
                                         double* __restrict s_lo, double* __restrict c_hi, double* __restrict c_lo) {
  for (std::int64_t k = 0; k < n; ++k) {
    const auto q = static_cast<std::uint64_t>(quarter[k]);
    const std::uint64_t swap = 0 - (q & 1);  // all ones on odd quarters
    const std::uint64_t sin_flip = (((q >> 1) ^ (q >> 2)) & 1) << 63, cos_flip = ((q ^ (q >> 1)) & 1) << 63;
    const double sh = s_hi[k], sl = s_lo[k], ch = c_hi[k], cl = c_lo[k];
    s_hi[k] = flip_sign(select_bits(sh, ch, swap), sin_flip), s_lo[k] = flip_sign(select_bits(sl, cl, swap), sin_flip);
    c_hi[k] = flip_sign(select_bits(ch, sh, swap), cos_flip), c_lo[k] = flip_sign(select_bits(cl, sl, swap), cos_flip);
  }
}

void sin_cos_turn_rows(const turn_sin_cos_job& job, const sin_cos_table& tab) {
  const std::int64_t n = job.n;
  double *hi = job.scratch, *lo = hi + n, *a = hi + 2 * n, *sa_hi = hi + 3 * n, *sa_lo = hi + 4 * n, *ca_hi = hi + 5 * n, *ca_lo = hi + 6 * n;
  reduce_rows(n, job.p, job.f, hi, lo, job.quarter);
  for (std::int64_t k = 0; k < n; ++k) {
    const table_point pt = nearest_table_point(hi[k], tab);
    a[k] = pt.a, sa_hi[k] = pt.sin_a.hi, sa_lo[k] = pt.sin_a.lo, ca_hi[k] = pt.cos_a.hi, ca_lo[k] = pt.cos_a.lo;
  }
  sin_cos_near_rows(n, hi, lo, a, sa_hi, sa_lo, ca_hi, ca_lo, tab.minus_sixth, tab.one_24th, job.s_hi, job.s_lo, job.c_hi, job.c_lo);
  undo_quarter_rows(n, job.quarter, job.s_hi, job.s_lo, job.c_hi, job.c_lo);
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
  // Bitwise, not &&: no branch in the vectorised loop.
  const bool certain = static_cast<int>(in_range) & static_cast<int>(certainly_rounds(ya, shared + 0x1p-100 * std::fabs(ya.hi))) &
                       static_cast<int>(certainly_rounds(yb, shared + 0x1p-100 * std::fabs(yb.hi)));
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
    certain[k] = (static_cast<int>(certainly_rounds(s, sin_cos_error(s))) & static_cast<int>(certainly_rounds(c, sin_cos_error(c)))) ? 1.0 : 0.0;
  }
}

void round_sin_cos_rows(const rounded_sin_cos_job& job) {
  round_rows(job.n, job.s_hi, job.s_lo, job.c_hi, job.c_lo, job.sin_out, job.cos_out, job.certain);
}

constexpr fast_kernels kernels_of_this_flavour(const char* name) {
  return {name, &reduce_turn_rows, &sin_cos_turn_rows, &rotate_token, &round_sin_cos_rows};
}

}  // namespace
}  // namespace pe
