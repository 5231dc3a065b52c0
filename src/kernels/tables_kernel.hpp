// apply_tables as one kernel body per rotated pair (or passed-through dim) of a token and head: the pair turned by the cos and sin it is handed, compiled for the GPU (cuda_backend.cu) and the host (host_grid.hpp).
#pragma once
#include <cstdint>

#include "kernels/device.hpp"
#include "kernels/storage.hpp"

namespace pe::kernels {

// Everything one launch reads; pointers are to device memory on the GPU and host memory on the
// host. The tables come in the I/O dtype, a row per token and a column per pair; each output is
// computed in binary64 from them and rounded once to binary32 (and from there to f16 or bf16).
struct tables_args {
  const void* x;    // [tokens, heads, dim] of io
  const void* cos;  // [tokens, rotary_dim / 2] of io
  const void* sin;  // the same
  void* y;          // [tokens, heads, dim] of io
  std::int64_t tokens, heads, dim, rotary_dim;
  bool neox;  // pair i is (i, i + rotary_dim/2) (rotate_half); else (2i, 2i+1) (GPT-J)
  io_type io;
};

// One thread's work: index < tokens * heads * (rotary_dim/2 + dim - rotary_dim).
PE_HD inline std::int64_t work_items(const tables_args& a) { return a.tokens * a.heads * (a.rotary_dim / 2 + a.dim - a.rotary_dim); }

// Work item `index`: one pair (y_a = c x_a - s x_b, y_b = s x_a + c x_b) or one passed-through dim
// of one token and head.
PE_HD inline void run_item(const tables_args& a, std::int64_t index) {
  const std::int64_t pairs = a.rotary_dim / 2, per_row = pairs + a.dim - a.rotary_dim;
  std::int64_t row = 0, k = 0;
  divide(index, per_row, &row, &k);  // row = token * heads + head
  const std::int64_t token = row / a.heads, base = row * a.dim;
  if (k >= pairs) {
    const std::int64_t d = base + a.rotary_dim + (k - pairs);
    store_io(a.io, a.y, d, load_io(a.io, a.x, d));
    return;
  }
  const std::int64_t ia = base + (a.neox ? k : 2 * k), ib = base + (a.neox ? k + pairs : 2 * k + 1);
  const double c = load_io(a.io, a.cos, token * pairs + k), s = load_io(a.io, a.sin, token * pairs + k);
  const double xa = load_io(a.io, a.x, ia), xb = load_io(a.io, a.x, ib);
  store_io(a.io, a.y, ia, static_cast<float>(c * xa - s * xb));
  store_io(a.io, a.y, ib, static_cast<float>(s * xa + c * xb));
}

}  // namespace pe::kernels
