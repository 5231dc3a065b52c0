// Sinusoidal encode as one kernel body per (token, frequency) pair, writing its sine and cosine, for the GPU (cuda_backend.cu) and the host (host_grid.hpp).
#pragma once
#include <cstdint>

#include "kernels/angles.hpp"
#include "kernels/device.hpp"
#include "kernels/storage.hpp"

namespace pe::kernels {

// Everything one launch reads (device memory on the GPU, host memory on the host). The columns
// come from the host (sinusoidal_slots), so the kernel knows no layout of its own.
struct encode_args {
  void* pe;                    // [tokens, dim] of io
  const std::int64_t* pos;     // [tokens]
  const std::int64_t* slots;   // [pairs][2]: the column of pair i's sine, then of its cosine
  const float* inv_freq;       // [pairs], binary32 (fast mode)
  const std::uint64_t* turns;  // [pairs][2]: frac(omega / 2pi) * 2^128, high word first (accurate mode)
  std::int64_t tokens, dim, pairs;
  io_type io;
  angle_mode mode;
};

PE_HD inline std::int64_t work_items(const encode_args& a) { return a.tokens * a.pairs; }

// Work item `index` = token * pairs + i: sin and cos of pos[token] omega_i, each rounded once to
// binary32 from the mode's sin and cos (and from there to f16 or bf16).
PE_HD inline void run_item(const encode_args& a, std::int64_t index) {
  const std::int64_t token = index / a.pairs, i = index % a.pairs;
  const std::int64_t row = token * a.dim, p = a.pos[token];
  float s, c;
  if (a.mode == angle_mode::fast) {
    fast_angle_sin_cos(p, a.inv_freq[i], &s, &c);
  } else {
    double s64, c64;
    accurate_sin_cos(p, a.turns + 2 * i, &s64, &c64);
    s = static_cast<float>(s64), c = static_cast<float>(c64);
  }
  store_io(a.io, a.pe, row + a.slots[2 * i], s);
  store_io(a.io, a.pe, row + a.slots[2 * i + 1], c);
}

}  // namespace pe::kernels
