// Double-double arithmetic: error-free transforms and the double-word operations whose error bounds are proven.
#pragma once
#include <cmath>

#include "pe/dd.hpp"

// Included only by the fast kernels' files (fast_kernels_body.hpp), each compiled for one
// flavour: with FMA instructions (for AVX2, or for AVX-512), or with Dekker's product
// (PE_FORCE_DEKKER). Everything here has internal linkage (an unnamed namespace), so the flavours
// never share a definition.
namespace pe {
namespace {

// Bounds below are relative to the exact result, u = 2^-53, from Joldes, Muller & Popescu,
// "Tight and rigorous error bounds for basic building blocks of double-word arithmetic", ACM
// TOMS 44(2), 2017 (algorithm numbers theirs); they hold while nothing underflows or overflows
// (callers keep magnitudes within 2^-900 .. 2^900, proofs/precision.fast_rotate.md).

// a + b exactly (Knuth's TwoSum).
inline dd two_sum(double a, double b) {
  const double s = a + b, bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}
// a + b exactly, for |a| >= |b| or a == 0 (Dekker's Fast2Sum).
inline dd fast_two_sum(double a, double b) {
  const double s = a + b;
  return {s, b - (s - a)};
}
// Whether std::fma is an instruction here. Without one (the x86-64 baseline) it is a library
// call, several times slower than the few operations below that replace it.
#if (defined(__FMA__) || defined(__aarch64__)) && !defined(PE_FORCE_DEKKER)
constexpr bool hardware_fma = true;
#else
constexpr bool hardware_fma = false;
#endif

// A double with Veltkamp's split: value = high + low exactly, each of at most 26 significant
// bits (|value| < 2^995). Split once, a factor serves every product it enters.
struct split_double {
  double value, high, low;
};
inline split_double split(double a) {
  if constexpr (hardware_fma) return {a, a, 0};  // unused with FMA
  const double t = 134217729.0 * a;               // 2^27 + 1
  const double high = t - (t - a);
  return {a, high, a - high};
}
// a * b exactly: FMA, or Dekker's product of the split factors (exact while nothing underflows).
inline dd two_prod(const split_double& a, const split_double& b) {
  const double p = a.value * b.value;
  if constexpr (hardware_fma) return {p, std::fma(a.value, b.value, -p)};
  return {p, ((a.high * b.high - p) + a.high * b.low + a.low * b.high) + a.low * b.low};
}
inline dd two_prod(double a, double b) { return two_prod(split(a), split(b)); }
// a * b + c: one rounding with FMA, two without. The bounds below allow two.
inline double mul_add(double a, double b, double c) {
  if constexpr (hardware_fma) return std::fma(a, b, c);
  else return a * b + c;
}
// x + y, relative error <= 3u^2/(1 - 4u) (AccurateDWPlusDW, algorithm 6).
inline dd add(dd x, dd y) {
  const dd s = two_sum(x.hi, y.hi), t = two_sum(x.lo, y.lo);
  const dd v = fast_two_sum(s.hi, s.lo + t.hi);
  return fast_two_sum(v.hi, t.lo + v.lo);
}
// x + y for a double y, relative error <= 2u^2 (DWPlusFP, algorithm 4).
inline dd add(dd x, double y) {
  const dd s = two_sum(x.hi, y);
  return fast_two_sum(s.hi, x.lo + s.lo);
}
// x * y for a double y, relative error <= 3u^2 (DWTimesFP3, algorithm 9, proven 2u^2 with
// FMA; without it the product x.lo y rounds once more, at most u^2 |x y|).
inline dd mul(dd x, double y) {
  const dd c = two_prod(x.hi, y);
  return fast_two_sum(c.hi, mul_add(x.lo, y, c.lo));
}
// x * y, relative error <= 7u^2 (DWTimesDW3, algorithm 12, proven 4u^2 with FMA; without it,
// DWTimesDW1's 7u^2).
inline dd mul(dd x, dd y) {
  const dd c = two_prod(x.hi, y.hi);
  const double t = mul_add(x.lo, y.hi, mul_add(x.hi, y.lo, x.lo * y.lo));
  return fast_two_sum(c.hi, c.lo + t);
}

}  // namespace
}  // namespace pe
