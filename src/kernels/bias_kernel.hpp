// ALiBi and T5 bias [heads, queries, keys] as kernel bodies, one per (query, key) writing every head, for the GPU (cuda_backend.cu) and the host (host_grid.hpp).
#pragma once
#include <cstdint>

#include "kernels/device.hpp"
#include "kernels/storage.hpp"

namespace pe::kernels {

// How far key k is from query q: |k - q| exactly (the difference of two int64 is below 2^64 in
// magnitude, so it fits in 64 unsigned bits) and whether the key is after the query.
struct key_distance {
  std::uint64_t magnitude;
  bool ahead;
};
PE_HD inline key_distance distance_of(std::int64_t q, std::int64_t k) {
  const bool ahead = k > q;
  const auto uq = static_cast<std::uint64_t>(q), uk = static_cast<std::uint64_t>(k);
  return {ahead ? uk - uq : uq - uk, ahead};
}

// Everything an ALiBi launch reads (device memory on the GPU, host memory on the host).
struct alibi_args {
  void* bias;                // [heads, queries, keys] of io
  const std::int64_t* qpos;  // [queries]
  const std::int64_t* kpos;  // [keys]
  const double* slopes;      // [heads], binary64 (bias_tables.hpp)
  std::int64_t heads, queries, keys;
  bool causal;  // slope (k - q) (the decoder form); else -slope |k - q|
  io_type io;
};

// One item per (query, key): queries * keys.
PE_HD inline std::int64_t work_items(const alibi_args& a) { return a.queries * a.keys; }

// Work item `index` = query * keys + key: slope_h times the distance in binary64 (the distance
// rounds once above 2^53, the product once), rounded to binary32 (proofs/precision.kernel_encode_bias.md).
// 0 - slope d rather than -(slope d), so that distance 0 gives +0 as the reference does.
PE_HD inline void run_item(const alibi_args& a, std::int64_t index) {
  const std::int64_t i = index / a.keys, j = index % a.keys;
  const key_distance d = distance_of(a.qpos[i], a.kpos[j]);
  const auto distance = static_cast<double>(d.magnitude);
  const bool positive = a.causal && d.ahead;
  for (std::int64_t h = 0; h < a.heads; ++h) {
    const double product = a.slopes[h] * distance;
    store_io(a.io, a.bias, (h * a.queries + i) * a.keys + j, static_cast<float>(positive ? product : 0.0 - product));
  }
}

// Everything a T5 launch reads. The bucket of a distance is a step function on each side of the
// query (bias_tables.hpp): from starts[e] on it is buckets[e]; the first before_count entries
// are for keys at or before the query (n = q - k), the after_count that follow for keys after it.
struct t5_args {
  void* bias;                   // [heads, queries, keys] of io
  const void* table;            // [buckets, heads] of io: the call's input `table`
  const std::int64_t* qpos;     // [queries]
  const std::int64_t* kpos;     // [keys]
  const std::uint64_t* starts;  // [before_count + after_count]
  const std::int64_t* buckets;  // the same length
  std::int64_t before_count, after_count;
  std::int64_t table_rows;  // the table's buckets (every entry of `buckets` is below it)
  std::int64_t heads, queries, keys;
  io_type io;
};

PE_HD inline std::int64_t work_items(const t5_args& a) { return a.queries * a.keys; }

// The bucket of distance n on one side: that of the last start <= n (the first start is the
// side's smallest distance, so there is one), by bisection.
PE_HD inline std::int64_t step_at(const std::uint64_t* starts, const std::int64_t* buckets, std::int64_t count, std::uint64_t n) {
  std::int64_t lo = 0, hi = count;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (starts[mid] <= n) lo = mid;
    else hi = mid;
  }
  return buckets[lo];
}

// The bucket of key k against query q. Distances beyond int64 (the reference saturates them to
// INT64_MIN or INT64_MAX) lie past each side's last start, so they land where saturation does.
PE_HD inline std::int64_t t5_bucket_of(const t5_args& a, std::int64_t q, std::int64_t k) {
  const key_distance d = distance_of(q, k);
  if (d.ahead) return step_at(a.starts + a.before_count, a.buckets + a.before_count, a.after_count, d.magnitude);
  return step_at(a.starts, a.buckets, a.before_count, d.magnitude);
}

// Work item `index` = query * keys + key: table[bucket, h] for every head, copied exactly (a
// stored value widened to binary32 and stored back in its own format).
PE_HD inline void run_item(const t5_args& a, std::int64_t index) {
  const std::int64_t i = index / a.keys, j = index % a.keys;
  const std::int64_t b = t5_bucket_of(a, a.qpos[i], a.kpos[j]);
  for (std::int64_t h = 0; h < a.heads; ++h)
    store_io(a.io, a.bias, (h * a.queries + i) * a.keys + j, load_io(a.io, a.table, b * a.heads + h));
}

}  // namespace pe::kernels
