// sin and cos of p * omega in the kernels' two angle modes, shared by rotate and encode (proofs/precision.kernel_rotate.md).
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/device.hpp"

namespace pe::kernels {

// fast: the angle float(p) * inv_freq in binary32 and fast_sin_cos (what Hugging Face's fp32
// code does). accurate: p * omega / 2pi reduced exactly mod 1 from the frequency's 128-bit turn
// fraction, sin and cos in binary64 (proofs/precision.kernel_rotate.md).
enum class angle_mode : std::int32_t { fast = 0, accurate = 1 };

// sin and cos of p omega from the turn fraction F = frac(omega / 2pi) (two words, 2^-128 apart):
// frac(|p| F) to 64 bits by integer products (the dropped low parts are below 2^-63 turns),
// centred in [-1/2, 1/2) turns and scaled by 2pi in binary64; the sign of p flips the sine.
PE_HD inline void accurate_sin_cos(std::int64_t p, const std::uint64_t* turn, double* s, double* c) {
  const std::uint64_t magnitude = p < 0 ? 0 - static_cast<std::uint64_t>(p) : static_cast<std::uint64_t>(p);
  const std::uint64_t fraction = magnitude * turn[0] + mul_high(magnitude, turn[1]);  // mod 2^64: whole turns drop out
  const double turns = static_cast<double>(static_cast<std::int64_t>(fraction)) * 0x1p-64;
  sin_cos(turns * 6.283185307179586476925286766559, s, c);
  if (p < 0) *s = -*s;
}

// angle - 2pi k for k = rint(angle / 2pi), in binary32 with 2pi in two parts (Cody and Waite) and
// fused products, then one turn more where k missed the nearest turn (angle / 2pi rounds in
// binary32 before rint: the first step alone leaves |r| up to pi + |angle| 2^-23.26, 6.04 rad
// near 2^25). The result lies in [-pi_f, pi_f] (pi_f = 3.14159274f, the binary32 nearest pi), the
// interval where __sincosf's error is documented, for every |angle| < 2^25; beyond it k's rounding
// leaves |r| up to ~200 rad at 2^31, where the binary32 angle is itself off by ~128 rad. The two
// parts miss 2pi by 2^-47.05 per turn: below 2^-23 |angle| in all (proofs/precision.kernel_rotate.md).
inline constexpr float pi_f = 3.14159274f;
inline constexpr float two_pi_high = 6.28318548f;     // 2pi rounded up to binary32
inline constexpr float two_pi_low = -1.7484556e-7f;   // 2pi - two_pi_high
PE_HD inline float within_one_turn(float angle) {
  const float k = ::rintf(angle * 0.159154937f);  // 1 / 2pi
  const float reduced = ::fmaf(-k, two_pi_low, ::fmaf(-k, two_pi_high, angle));
  // reduced -/+ two_pi_high is exact (Sterbenz: |reduced| lies within [pi_f, 3pi]); the low part
  // then rounds once.
  if (reduced > pi_f) return (reduced - two_pi_high) - two_pi_low;
  if (reduced < -pi_f) return (reduced + two_pi_high) + two_pi_low;
  return reduced;
}

// The fast mode's sin and cos of float(p) * inv_freq, reduced by one turn.
PE_HD inline void fast_angle_sin_cos(std::int64_t p, float inv_freq, float* s, float* c) {
  fast_sin_cos(within_one_turn(static_cast<float>(p) * inv_freq), s, c);
}

}  // namespace pe::kernels
