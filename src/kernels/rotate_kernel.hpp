// RoPE rotate as one kernel body per rotated pair (or passed-through dim) of a token in a group of heads, compiled for the GPU (cuda_backend.cu) and for the host (host_grid.hpp).
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/angles.hpp"
#include "kernels/device.hpp"
#include "kernels/storage.hpp"

namespace pe::kernels {

// The sine and cosine of one pair's angle p omega, in the mode's precision (binary32 in the fast
// mode, binary64 in the accurate one). An angle depends on the token and the pair, not the head,
// so rotate computes it once for several heads (heads_per_item).
struct pair_turn {
  float s32 = 0, c32 = 1;
  double s64 = 0, c64 = 1;
};

// p omega's turn: inv_freq is the pair's binary32 frequency (fast mode), turn its two-word turn
// fraction (accurate mode).
PE_HD inline pair_turn turn_of(angle_mode mode, std::int64_t p, float inv_freq, const std::uint64_t* turn) {
  pair_turn t;
  if (mode == angle_mode::fast) {
    fast_angle_sin_cos(p, inv_freq, &t.s32, &t.c32);
  } else {
    accurate_sin_cos(p, turn, &t.s64, &t.c64);
  }
  return t;
}

// One pair (x_a, x_b) turned by t and scaled by the attention factor: y_a = A (c x_a - s x_b),
// y_b = A (s x_a + c x_b), in binary32 in the fast mode, in binary64 rounded once to binary32 in
// the accurate one.
PE_HD inline void apply_turn(angle_mode mode, const pair_turn& t, double factor, float xa, float xb, float* ya, float* yb) {
  if (mode == angle_mode::fast) {
    const auto f = static_cast<float>(factor);
    *ya = f * (xa * t.c32 - xb * t.s32);
    *yb = f * (xa * t.s32 + xb * t.c32);
  } else {
    // Products of binary32 inputs by binary64 sin and cos, in binary64: one rounding to float.
    *ya = static_cast<float>(factor * (static_cast<double>(xa) * t.c64 - static_cast<double>(xb) * t.s64));
    *yb = static_cast<float>(factor * (static_cast<double>(xa) * t.s64 + static_cast<double>(xb) * t.c64));
  }
}

// One pair turned by p omega (turn_of, then apply_turn). attend (attend_kernel.hpp) turns its
// pairs by it.
PE_HD inline void rotate_values(angle_mode mode, std::int64_t p, float inv_freq, const std::uint64_t* turn, double factor, float xa, float xb,
                                float* ya, float* yb) {
  apply_turn(mode, turn_of(mode, p, inv_freq, turn), factor, xa, xb, ya, yb);
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
  bool transpose = false;  // R_p^T (rotate_grad, the backward pass): each pair turned by -p omega
};

// Heads one work item turns with one sine and cosine. On the GPU the angle (integer products and
// a binary64 sincos in the accurate mode, the reduction and __sincosf in the fast one) costs more
// than moving a pair's bytes; shared by 8 heads it no longer sets the speed (src/kernels/README.md, "The
// kernels": rotate against a copy). The item loads its pairs of every head before it stores the
// first, so up to 16 loads are in flight per thread.
inline constexpr int heads_per_item = 8;

PE_HD inline std::int64_t head_groups(const rotate_args& a) { return (a.heads + heads_per_item - 1) / heads_per_item; }

// One thread's work: index < tokens * head_groups * (rotary_dim/2 + dim - rotary_dim).
PE_HD inline std::int64_t work_items(const rotate_args& a) { return a.tokens * head_groups(a) * (a.rotary_dim / 2 + a.dim - a.rotary_dim); }

// Work item `index`: one rotated pair (y_a = A (c x_a - s x_b), y_b = A (s x_a + c x_b)) or one
// passed-through dim of one token, in each head of one group of up to heads_per_item heads.
PE_HD inline void run_item(const rotate_args& a, std::int64_t index) {
  const std::int64_t pairs = a.rotary_dim / 2, per_row = pairs + a.dim - a.rotary_dim;
  std::int64_t row = 0, k = 0, token = 0, group = 0;
  divide(index, per_row, &row, &k);  // row = token * head_groups + group
  divide(row, head_groups(a), &token, &group);
  const std::int64_t first = group * heads_per_item, base = (token * a.heads + first) * a.dim;
  const int count = static_cast<int>(a.heads - first < heads_per_item ? a.heads - first : heads_per_item);
  if (k >= pairs) {
    const std::int64_t d = base + a.rotary_dim + (k - pairs);
    for (int h = 0; h < count; ++h) store_io(a.io, a.y, d + h * a.dim, load_io(a.io, a.x, d + h * a.dim));
    return;
  }
  const std::int64_t ia = base + (a.neox ? k : 2 * k), ib = base + (a.neox ? k + pairs : 2 * k + 1);
  float xa[heads_per_item], xb[heads_per_item];
  PE_UNROLL
  for (int h = 0; h < heads_per_item; ++h)
    if (h < count) xa[h] = load_io(a.io, a.x, ia + h * a.dim), xb[h] = load_io(a.io, a.x, ib + h * a.dim);
  pair_turn t = turn_of(a.mode, a.pos[token], a.inv_freq[k], a.turns + 2 * k);
  if (a.transpose) t.s32 = -t.s32, t.s64 = -t.s64;  // sin(-theta) = -sin(theta), exactly
  PE_UNROLL
  for (int h = 0; h < heads_per_item; ++h) {
    if (h >= count) break;
    float ya = 0, yb = 0;
    apply_turn(a.mode, t, a.factor, xa[h], xb[h], &ya, &yb);
    store_io(a.io, a.y, ia + h * a.dim, ya);
    store_io(a.io, a.y, ib + h * a.dim, yb);
  }
}

}  // namespace pe::kernels
