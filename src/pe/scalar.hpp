// The scalar layer: which type a reference computes in for each output type, and how results are stored.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "pe/float_format.hpp"
#include "pe/half.hpp"
#include "pe/mp.hpp"

namespace pe {

// References compute in compute_t<T> and store each result once, correctly rounded, as T:
// - float, double, bf16, fp16 compute in double (with the exact phase reduction of
//   pe/phase.hpp), then round once to T;
// - mp_real computes with guard bits and rounds to mp_output_bits();
// - any other T (e.g. the archetype scalar of the tests) computes in T itself, through
//   unqualified math calls found by ADL.
template <class T>
struct compute_type {
  using type = T;
};
template <>
struct compute_type<float> {
  using type = double;
};
template <int E, int M>
struct compute_type<small_float<E, M>> {
  using type = double;
};
template <class T>
using compute_t = typename compute_type<T>::type;

// The binary format a stored type rounds to.
template <class T>
constexpr const float_format& format_of() {
  if constexpr (std::is_same_v<T, float>) return binary32;
  else if constexpr (std::is_same_v<T, bf16>) return bfloat16;
  else if constexpr (std::is_same_v<T, fp16>) return binary16;
  else return binary64;
}

// The result of a computation in compute_t<T>, stored as T.
template <class T, class C>
T store_as(const C& value) {
  if constexpr (std::is_same_v<T, mp_real>) {
    return round_to_bits(value, mp_output_bits());
  } else if constexpr (std::is_same_v<T, C>) {
    return value;
  } else if constexpr (std::is_same_v<C, mp_real>) {
    return T(round_to_format(value, format_of<T>()));  // MPFR -> any binary format: one rounding
  } else {
    return T(value);  // double -> float / bf16 / fp16: one correct rounding
  }
}

// Where results that feed more arithmetic are carried (a rotation's c x_a - s x_b can cancel):
// MPFR for every stored type except generic ones, which stay in T.
template <class T>
using wide_t = std::conditional_t<std::is_same_v<compute_t<T>, double> || std::is_same_v<T, mp_real>, mp_real, T>;

// An int64 stored as T with one correct rounding. int64 -> double and -> float are correctly
// rounded conversions; bf16 and fp16 go through MPFR at 64 bits, which holds any int64
// exactly (through double they could round twice above 2^53).
template <class T>
T store_integer(std::int64_t p) {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float>) {
    return static_cast<T>(p);
  } else if constexpr (std::is_same_v<T, mp_real>) {
    mp_working_bits exact(std::max(64u, mp_output_bits()));
    return round_to_bits(mp_real(p), mp_output_bits());
  } else if constexpr (std::is_same_v<compute_t<T>, double>) {
    mp_working_bits exact(64);
    return T(mp_real(p));
  } else {
    return T(p);
  }
}

// num / den stored as T with one correct rounding. MPFR divides at the output precision
// directly; the binary formats round a 192-bit quotient, which is on the right side of every
// rounding boundary (a quotient of int64s that is not exactly a tie differs from one by more
// than 2^-140 relative).
template <class T>
T store_ratio(std::int64_t num, std::int64_t den) {
  if constexpr (std::is_same_v<T, mp_real>) {
    mp_working_bits exact(std::max(64u, mp_output_bits()));
    const mp_real n(num), d(den);
    mp_real q = round_to_bits(mp_real(0), mp_output_bits());
    mpfr_div(q.backend().data(), n.backend().data(), d.backend().data(), MPFR_RNDN);
    return q;
  } else if constexpr (std::is_same_v<compute_t<T>, double>) {
    mp_working_bits wide(192);
    return T(round_to_format(mp_real(num) / mp_real(den), format_of<T>()));
  } else {
    return T(num) / T(den);
  }
}

// A value as exact-enough decimal text: 17 significant digits for binary64 (round-trips),
// 9 for binary32, 5 for the 16-bit types, all meaningful digits for MPFR.
inline std::string to_decimal(double x) { return fmt::format("{:.17g}", x); }
inline std::string to_decimal(float x) { return fmt::format("{:.9g}", x); }
template <int E, int M>
std::string to_decimal(small_float<E, M> x) {
  return fmt::format("{:.5g}", static_cast<double>(x));
}

// Names used in reports and JSON.
template <class T>
constexpr const char* scalar_name() {
  if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, bf16>) return "bf16";
  else if constexpr (std::is_same_v<T, fp16>) return "f16";
  else if constexpr (std::is_same_v<T, mp_real>) return "mpfr";
  else return "generic";
}

}  // namespace pe
