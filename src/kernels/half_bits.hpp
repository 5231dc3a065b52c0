// binary16 and bfloat16 storage as 16-bit words, converted to and from binary32 by bit arithmetic that runs alike on GPU and host.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/device.hpp"

namespace pe::kernels {

PE_HD inline std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
PE_HD inline float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// bfloat16 is binary32's top half: widening is exact.
PE_HD inline float bf16_to_float(std::uint16_t h) { return float_of(static_cast<std::uint32_t>(h) << 16); }

// binary32 -> bfloat16, round to nearest even; NaN stays a (quiet) NaN.
PE_HD inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t u = bits_of(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);
  const std::uint32_t rounded = u + 0x7fffu + ((u >> 16) & 1u);  // carries into the exponent (and to Inf) as rounding should
  return static_cast<std::uint16_t>(rounded >> 16);
}

// binary16 -> binary32, exact (subnormals normalised).
PE_HD inline float f16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0x1f) return float_of(sign | 0x7f800000u | (mantissa << 13));  // Inf, NaN
  if (exponent == 0) {
    if (mantissa == 0) return float_of(sign);
    // 2^-14 * mantissa / 2^10: exact in binary32.
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return float_of(sign | bits_of(magnitude));
  }
  return float_of(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

// binary32 -> binary16, round to nearest even, overflowing to Inf; NaN stays a (quiet) NaN.
PE_HD inline std::uint16_t float_to_f16(float f) {
  const std::uint32_t u = bits_of(f);
  const auto sign = static_cast<std::uint16_t>((u >> 16) & 0x8000u);
  const std::uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);
  if (magnitude >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520: rounds to Inf
  if (magnitude < 0x38800000u) {
    // Below 2^-14: a subnormal (or zero) in units of 2^-24, rounded once by the hardware's
    // binary32 addition of 0.5 (exact for these magnitudes: the sum has 24 bits).
    const float units = float_of(magnitude) * 0x1p24f;  // exact: a power-of-two scaling
    const float biased = units + 0x1p23f;               // rounds units to an integer, ties to even
    return static_cast<std::uint16_t>(sign | (bits_of(biased) - bits_of(0x1p23f)));
  }
  // Normal: drop 13 mantissa bits with rounding to nearest even; a carry moves the exponent.
  const std::uint32_t rebased = magnitude - (112u << 23);
  const std::uint32_t rounded = rebased + 0xfffu + ((rebased >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

}  // namespace pe::kernels
