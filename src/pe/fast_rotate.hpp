// The fast binary64 rotation of one pair: double-double arithmetic, kept only where it provably rounds like the exact value.
#pragma once
#include <bit>
#include <cmath>
#include <cstdint>
#include <optional>

#include "pe/double_double.hpp"
#include "pe/sin_cos_dd.hpp"

namespace pe {

// RN(exact) for a double-double z within `error` (absolute) of an exact value: z.hi, when every
// value within `error` of z rounds to it; nullopt when that is not certain (the value may lie
// across a rounding boundary) or z is too small for the error model (proofs/precision.fast_rotate.md).
inline std::optional<double> certainly_rounded(dd z, double error) {
  const double h = std::fabs(z.hi);
  if (!(h >= 0x1p-960) || !(h <= 0x1p1000)) return std::nullopt;
  // The rounding boundaries around hi: half the spacing above |hi| and half the spacing below
  // (a quarter of the spacing above when |hi| is a power of two).
  // h is normal and finite here, so its neighbours are one step of its bit pattern away.
  const auto bits = std::bit_cast<std::uint64_t>(h);
  const double above = (std::bit_cast<double>(bits + 1) - h) / 2, below = (h - std::bit_cast<double>(bits - 1)) / 2;
  const bool outward = z.lo != 0 && (z.lo > 0) == (z.hi > 0);
  const double room = z.lo == 0 ? std::fmin(above, below) : outward ? above : below;
  if (std::fabs(z.lo) + error < room) return z.hi;
  return std::nullopt;
}

// The factor rotate multiplies by (1, YaRN's, LongRoPE's), as a double-double: |A| in
// [2^-100, 2^100], else nullopt (the MPFR path takes those).
struct rotation_factor {
  dd value;
  bool one;
};

struct pair_outputs {
  double a, b;
};

// sin and cos of one (token, pair), with their heads split once for every head's products.
struct rotation_terms {
  dd c, s;
  split_double c_head, s_head;
  static rotation_terms of(const sin_cos_pair& sc) { return {sc.c, sc.s, split(sc.c.hi), split(sc.s.hi)}; }
};

// u x - v z as a double-double, u and v double-doubles with split heads: the heads' products
// exactly, their difference exactly (two_sum), and every tail (the products' low parts, u.lo x,
// v.lo z) summed in binary64: within 10 u^2 (|u x| + |v z|) of the exact value
// (proofs/precision.fast_rotate.md, "The rotation").
inline dd cross_difference(const dd& u, const split_double& u_head, const split_double& x, const dd& v, const split_double& v_head,
                           const split_double& z) {
  const dd p = two_prod(u_head, x), q = two_prod(v_head, z);
  const dd head = two_sum(p.hi, -q.hi);
  const double tail = head.lo + ((p.lo - q.lo) + (u.lo * x.value - v.lo * z.value));
  return two_sum(head.hi, tail);
}

// y_a = A (c x_a - s x_b), y_b = A (s x_a + c x_b), each correctly rounded to binary64, or
// nullopt where the double-double result cannot prove its rounding (strong cancellation, a zero,
// inputs outside 2^-900 .. 2^900): the caller then computes that pair in MPFR. c and s within
// 2^-97.5 relative plus 2^-123 absolute of the exact cos and sin; the error below adds every
// later rounding with margin (proofs/precision.fast_rotate.md, "The rotation").
inline std::optional<pair_outputs> fast_rotate_pair(const rotation_terms& r, const rotation_factor& f, double xa, double xb) {
  const double n = std::fabs(xa) + std::fabs(xb);
  if (!(n >= 0x1p-900 && n <= 0x1p900)) return std::nullopt;
  const split_double a = split(xa), b = split(xb), minus_b = {-xb, -b.high, -b.low};
  dd ya = cross_difference(r.c, r.c_head, a, r.s, r.s_head, b), yb = cross_difference(r.s, r.s_head, a, r.c, r.c_head, minus_b);
  double scale = 1;
  if (!f.one) {
    ya = mul(f.value, ya), yb = mul(f.value, yb);
    scale = std::fabs(f.value.hi);
  }
  const auto error = [&](double m, const dd& y) { return scale * (0x1p-97 * m + 0x1p-123 * n) + 0x1p-100 * std::fabs(y.hi); };
  const auto ra = certainly_rounded(ya, error(std::fabs(r.c.hi * xa) + std::fabs(r.s.hi * xb), ya));
  if (!ra) return std::nullopt;
  const auto rb = certainly_rounded(yb, error(std::fabs(r.s.hi * xa) + std::fabs(r.c.hi * xb), yb));
  if (!rb) return std::nullopt;
  return pair_outputs{*ra, *rb};
}

}  // namespace pe
