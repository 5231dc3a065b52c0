// RoPE rotate as one kernel body per rotated pair (or passed-through dim), compiled for the GPU (cuda_backend.cu) and for the host (host_grid.hpp).
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/angles.hpp"
#include "kernels/device.hpp"
#include "kernels/storage.hpp"

namespace pe::kernels {

// One pair (x_a, x_b) turned by p omega (inv_freq its binary32 frequency, turn its two-word turn
// fraction) and scaled by the attention factor: y_a = A (c x_a - s x_b), y_b = A (s x_a + c x_b),
// in binary32 in the fast mode, in binary64 rounded once to binary32 in the accurate one. rotate
// and attend (attend_kernel.hpp) turn their pairs by it.
PE_HD inline void rotate_values(angle_mode mode, std::int64_t p, float inv_freq, const std::uint64_t* turn, double factor, float xa, float xb,
                                float* ya, float* yb) {
  if (mode == angle_mode::fast) {
    float s, c;
    fast_angle_sin_cos(p, inv_freq, &s, &c);
    const auto f = static_cast<float>(factor);
    *ya = f * (xa * c - xb * s);
    *yb = f * (xa * s + xb * c);
  } else {
    double s, c;
    accurate_sin_cos(p, turn, &s, &c);
    // Products of binary32 inputs by binary64 sin and cos, in binary64: one rounding to float.
    *ya = static_cast<float>(factor * (static_cast<double>(xa) * c - static_cast<double>(xb) * s));
    *yb = static_cast<float>(factor * (static_cast<double>(xa) * s + static_cast<double>(xb) * c));
  }
}

// Everything one launch reads; pointers are to device memory on the GPU and host memory on the
// host. In the fast angle mode (angles.hpp) the rotation is in binary32 (what Hugging Face's fp32
// RoPE does); in the accurate one in binary64, rounded to binary32 (and from there to f16 or bf16).
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
PE_HD inline std::int64_t work_items(const rotate_args& a) { return a.tokens * a.heads * (a.rotary_dim / 2 + a.dim - a.rotary_dim); }

// Work item `index`: a rotated pair (y_a = A (c x_a - s x_b), y_b = A (s x_a + c x_b)) or a
// passed-through dim, of one token and head.
PE_HD inline void run_item(const rotate_args& a, std::int64_t index) {
  const std::int64_t pairs = a.rotary_dim / 2, per_row = pairs + a.dim - a.rotary_dim;
  const std::int64_t row = index / per_row, k = index % per_row;  // row = token * heads + head
  const std::int64_t base = row * a.dim;
  if (k >= pairs) {
    const std::int64_t d = a.rotary_dim + (k - pairs);
    store_io(a.io, a.y, base + d, load_io(a.io, a.x, base + d));
    return;
  }
  const std::int64_t ia = base + (a.neox ? k : 2 * k), ib = base + (a.neox ? k + pairs : 2 * k + 1);
  const std::int64_t p = a.pos[row / a.heads];
  float ya, yb;
  rotate_values(a.mode, p, a.inv_freq[k], a.turns + 2 * k, a.factor, load_io(a.io, a.x, ia), load_io(a.io, a.x, ib), &ya, &yb);
  store_io(a.io, a.y, ia, ya);
  store_io(a.io, a.y, ib, yb);
}

}  // namespace pe::kernels
