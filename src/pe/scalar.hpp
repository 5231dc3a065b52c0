// The scalar layer: which type a reference computes in for each output type, and how results are stored.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>

#include <fmt/format.h>

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

// The result of a computation in compute_t<T>, stored as T.
template <class T, class C>
T store_as(const C& value) {
  if constexpr (std::is_same_v<T, mp_real>) {
    return round_to_bits(value, mp_output_bits());
  } else if constexpr (std::is_same_v<T, C>) {
    return value;
  } else {
    return T(value);  // double -> float / bf16 / fp16: one correct rounding
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
