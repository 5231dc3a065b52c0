// RoPE rotate as one kernel body per rotated pair (or passed-through dim), compiled for the GPU (rotate.cu) and for the host (host_grid.hpp).
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/device.hpp"
#include "kernels/half_bits.hpp"

namespace pe::kernels {

enum class io_type : std::int32_t { f32 = 0, f16 = 1, bf16 = 2 };

// fast: the angle float(p) * inv_freq in binary32 and fast_sin_cos, then the rotation in binary32
// (what Hugging Face's fp32 RoPE does). accurate: p * omega / 2pi reduced exactly mod 1 from the
// frequency's 128-bit turn fraction, sin and cos in binary64, the rotation in binary64, rounded to
// binary32 (and from there to f16 or bf16 storage) (proofs/precision.kernel_rotate.md).
enum class angle_mode : std::int32_t { fast = 0, accurate = 1 };

// Everything one launch reads; pointers are to device memory on the GPU and host memory on the host.
struct rotate_args {
  const void* x;               // [tokens, heads, dim] of io
  void* y;                     // the same shape and type
  const std::int64_t* pos;     // [tokens]
  const float* inv_freq;       // [pairs], binary32 (fast mode)
  const std::uint64_t* turns;  // [pairs][2]: frac(omega / 2pi) * 2^128, high word first (accurate mode)
  double factor;               // the attention factor A (1 for most specs)
  std::int64_t tokens, heads, dim, rotary_dim;
  bool neox;  // pair i is (i, i + rotary_dim/2) (rotate_half); else (2i, 2i+1) (GPT-J)
  io_type io;
  angle_mode mode;
};

// One thread's work: index < tokens * heads * (rotary_dim/2 + dim - rotary_dim).
PE_HD inline std::int64_t rotate_work_items(const rotate_args& a) { return a.tokens * a.heads * (a.rotary_dim / 2 + a.dim - a.rotary_dim); }

PE_HD inline float load(const rotate_args& a, std::int64_t i) {
  switch (a.io) {
    case io_type::f16: return f16_to_float(static_cast<const std::uint16_t*>(a.x)[i]);
    case io_type::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(a.x)[i]);
    default: return static_cast<const float*>(a.x)[i];
  }
}
PE_HD inline void store(const rotate_args& a, std::int64_t i, float v) {
  switch (a.io) {
    case io_type::f16: static_cast<std::uint16_t*>(a.y)[i] = float_to_f16(v); break;
    case io_type::bf16: static_cast<std::uint16_t*>(a.y)[i] = float_to_bf16(v); break;
    default: static_cast<float*>(a.y)[i] = v;
  }
}

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
// fused products: |r| <= pi plus a few ulps while |angle| < 2^25, the range where __sincosf is
// accurate (beyond it k's rounding leaves |r| up to ~200 rad at 2^31, where the binary32 angle is
// itself off by ~128 rad). The two parts miss 2pi by 2^-47.05 per turn: below 2^-23 |angle| in all.
PE_HD inline float within_one_turn(float angle) {
  const float k = ::rintf(angle * 0.159154937f);     // 1 / 2pi
  const float r = ::fmaf(-k, 6.28318548f, angle);    // 2pi rounded up to binary32
  return ::fmaf(-k, -1.7484556e-7f, r);             // 2pi - 6.28318548f
}

// Work item `index`: a rotated pair (y_a = A (c x_a - s x_b), y_b = A (s x_a + c x_b)) or a
// passed-through dim, of one token and head.
PE_HD inline void rotate_item(const rotate_args& a, std::int64_t index) {
  const std::int64_t pairs = a.rotary_dim / 2, per_row = pairs + a.dim - a.rotary_dim;
  const std::int64_t row = index / per_row, k = index % per_row;  // row = token * heads + head
  const std::int64_t base = row * a.dim;
  if (k >= pairs) {
    const std::int64_t d = a.rotary_dim + (k - pairs);
    store(a, base + d, load(a, base + d));
    return;
  }
  const std::int64_t ia = base + (a.neox ? k : 2 * k), ib = base + (a.neox ? k + pairs : 2 * k + 1);
  const std::int64_t p = a.pos[row / a.heads];
  const float xa = load(a, ia), xb = load(a, ib);
  if (a.mode == angle_mode::fast) {
    float s, c;
    fast_sin_cos(within_one_turn(static_cast<float>(p) * a.inv_freq[k]), &s, &c);
    const auto factor = static_cast<float>(a.factor);
    store(a, ia, factor * (xa * c - xb * s));
    store(a, ib, factor * (xa * s + xb * c));
  } else {
    double s, c;
    accurate_sin_cos(p, a.turns + 2 * k, &s, &c);
    // Products of binary32 inputs by binary64 sin and cos, in binary64: one rounding to float.
    store(a, ia, static_cast<float>(a.factor * (static_cast<double>(xa) * c - static_cast<double>(xb) * s)));
    store(a, ib, static_cast<float>(a.factor * (static_cast<double>(xa) * s + static_cast<double>(xb) * c)));
  }
}

}  // namespace pe::kernels
