// T5's relative position buckets and the learned bias table looked up into [H, T, S].
#pragma once
#include <cstdint>
#include <limits>
#include <span>

#include "pe/scalar.hpp"
#include "pe/schemes/absolute.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// T5's bucket of rel = key - query (Raffel et al. 2020; HF T5Attention._relative_position_bucket):
// bidirectional: half the buckets per sign, positive rel offset by buckets/2, n = |rel|;
// unidirectional: n = max(-rel, 0) (keys after the query all fall in bucket 0). With
// nb the buckets per sign and exact = nb/2: n < exact is its own bucket; beyond,
// exact + floor(ln(n/exact) / ln(max_distance/exact) * (nb - exact)), capped at nb - 1.
// The floor is decided exactly, in integers (n^(nb-exact) exact^m against
// max_distance^m exact^(nb-exact)), so boundaries such as n = 16, 32, 64 at (32, 128) land
// where the real-number formula puts them; float32 implementations may not (see t5_test).
std::int64_t t5_bucket(std::int64_t rel, std::int64_t buckets, std::int64_t max_distance, bool bidirectional);

// bias [H, T, S]: table[bucket(kpos_j - qpos_i), h]. The table [buckets, heads] stands in for
// trained weights like learned(): entry (b, h) = learned_entry(seed, b * heads + h, init_std).
template <class T>
tensor<T> t5_bias(const spec& s, std::span<const std::int64_t> qpos, std::span<const std::int64_t> kpos) {
  using C = compute_t<T>;
  const std::int64_t heads = s.integer("heads"), buckets = s.integer("buckets");
  const auto n_q = static_cast<std::int64_t>(qpos.size()), n_k = static_cast<std::int64_t>(kpos.size());
  tensor<T> out({heads, n_q, n_k});
  for (std::int64_t i = 0; i < n_q; ++i)
    for (std::int64_t j = 0; j < n_k; ++j) {
      // key - query, saturated: beyond int64 every distance is in the last bucket of its sign.
      std::int64_t rel = 0;
      if (__builtin_sub_overflow(kpos[j], qpos[i], &rel)) {
        rel = kpos[j] > qpos[i] ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
      }
      const std::int64_t b = t5_bucket(rel, buckets, s.integer("max_distance"), s.boolean("bidirectional"));
      for (std::int64_t h = 0; h < heads; ++h) {
        const double w = learned_entry(static_cast<std::uint64_t>(s.integer("seed")), b * heads + h, s.real("init_std"));
        out.data[static_cast<size_t>((h * n_q + i) * n_k + j)] = store_as<T>(C(w));
      }
    }
  return out;
}

}  // namespace pe
