// RoPE attend as one kernel body per (query, head): q and each key turned as rotate turns them, then softmax(q k^T / sqrt(D)) v in binary32.
#pragma once
#include <cmath>
#include <cstdint>

#include "kernels/device.hpp"
#include "kernels/rotate_kernel.hpp"
#include "kernels/storage.hpp"

namespace pe::kernels {

// The largest head dim (of q and k, and of v) the kernel takes: each thread keeps its query and
// its output row in registers or local memory. Wider heads answer unsupported.
inline constexpr std::int64_t attend_max_dim = 256;

// Everything one launch reads; pointers are to device memory on the GPU and host memory on the
// host. q and k are turned by their own tables: a dynamic scaling reads each side's length.
struct attend_args {
  const void* q;                      // [queries, heads, dim] of io
  const void* k;                      // [keys, heads, dim]
  const void* v;                      // [keys, heads, value_dim]
  void* out;                          // [queries, heads, value_dim]
  const std::int64_t *qpos, *kpos;    // [queries], [keys]
  const float *q_inv_freq, *k_inv_freq;  // [rotary_dim / 2] each, binary32 (fast mode)
  const std::uint64_t *q_turns, *k_turns;  // [rotary_dim / 2][2] each (accurate mode)
  double q_factor, k_factor;          // the attention factor of each side's plan
  std::int64_t queries, keys, heads, dim, value_dim, rotary_dim;
  bool neox, causal;                  // causal: key j is hidden from query i when kpos[j] > qpos[i]
  io_type io;
  angle_mode mode;
};

PE_HD inline std::int64_t work_items(const attend_args& a) { return a.queries * a.heads; }

// Dims a and b of pair k in a row of `dim` (rotate's layouts).
PE_HD inline std::int64_t pair_first(const attend_args& a, std::int64_t k) { return a.neox ? k : 2 * k; }
PE_HD inline std::int64_t pair_second(const attend_args& a, std::int64_t k) { return a.neox ? k + a.rotary_dim / 2 : 2 * k + 1; }

// Whether key j is hidden from query i by the causal mask (int64 positions: exact).
PE_HD inline bool hidden(const attend_args& a, std::int64_t i, std::int64_t j) { return a.causal && a.kpos[j] > a.qpos[i]; }

// The score z_j = (q . k_j) s of head h, with q the turned query and k_j turned here; the same
// operations in the same order on every call, so the same bits.
PE_HD inline float score(const attend_args& a, const float* q, std::int64_t h, std::int64_t j, float scale) {
  const std::int64_t k_row = (j * a.heads + h) * a.dim, pairs = a.rotary_dim / 2;
  float dot = 0;
  for (std::int64_t k = 0; k < pairs; ++k) {
    const std::int64_t da = pair_first(a, k), db = pair_second(a, k);
    float ka, kb;
    rotate_values(a.mode, a.kpos[j], a.k_inv_freq[k], a.k_turns + 2 * k, a.k_factor, load_io(a.io, a.k, k_row + da),
                  load_io(a.io, a.k, k_row + db), &ka, &kb);
    dot += q[da] * ka + q[db] * kb;
  }
  for (std::int64_t d = a.rotary_dim; d < a.dim; ++d) dot += q[d] * load_io(a.io, a.k, k_row + d);  // passed through
  return dot * scale;
}

// Work item `index` = query * heads + head: the query turned once; a first pass over the visible
// keys for the largest score m, a second for e^(z_j - m), their sum and the weighted values; each
// output their quotient, rounded once to io. Two passes rather than an online softmax: no
// rescaling, whose roundings would grow with the number of times the maximum moves.
PE_HD inline void run_item(const attend_args& a, std::int64_t index) {
  const std::int64_t i = index / a.heads, h = index % a.heads, pairs = a.rotary_dim / 2;
  float q[attend_max_dim], acc[attend_max_dim];
  const std::int64_t q_row = (i * a.heads + h) * a.dim;
  for (std::int64_t d = a.rotary_dim; d < a.dim; ++d) q[d] = load_io(a.io, a.q, q_row + d);  // passed through
  for (std::int64_t k = 0; k < pairs; ++k) {
    const std::int64_t da = pair_first(a, k), db = pair_second(a, k);
    rotate_values(a.mode, a.qpos[i], a.q_inv_freq[k], a.q_turns + 2 * k, a.q_factor, load_io(a.io, a.q, q_row + da),
                  load_io(a.io, a.q, q_row + db), &q[da], &q[db]);
  }
  const auto scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(a.dim)));  // 1/sqrt(D), rounded once
  float top = -INFINITY;
  for (std::int64_t j = 0; j < a.keys; ++j)
    if (!hidden(a, i, j)) top = fmaxf(top, score(a, q, h, j, scale));
  for (std::int64_t c = 0; c < a.value_dim; ++c) acc[c] = 0;
  float total = 0;
  for (std::int64_t j = 0; j < a.keys; ++j) {
    if (hidden(a, i, j)) continue;
    const float w = exp_f(score(a, q, h, j, scale) - top);
    total += w;
    const std::int64_t v_row = (j * a.heads + h) * a.value_dim;
    for (std::int64_t c = 0; c < a.value_dim; ++c) acc[c] += w * load_io(a.io, a.v, v_row + c);
  }
  const std::int64_t out_row = (i * a.heads + h) * a.value_dim;
  for (std::int64_t c = 0; c < a.value_dim; ++c) store_io(a.io, a.out, out_row + c, acc[c] / total);
}

}  // namespace pe::kernels
