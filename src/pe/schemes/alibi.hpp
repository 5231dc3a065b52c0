// ALiBi (Press et al. 2022): per-head slopes and the linear distance bias [H, T, S].
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "pe/scalar.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// The slope of head h (0-based) is 2^e with e exact rational:
// - n a power of two: e = -8 (h + 1) / n;
// - otherwise (the paper's construction, as in its reference code and BLOOM): with
//   m = 2^floor(log2 n), the m slopes of m heads, then every other slope of 2m heads
//   (2^(-4 (2j + 1) / m), j = 0 .. n - m - 1). For 12 heads: 2^-1 .. 2^-8, then 2^-0.5,
//   2^-1.5, 2^-2.5, 2^-3.5.
// Returned as (numerator, denominator) of e, so every precision evaluates 2^e itself.
std::vector<std::pair<std::int64_t, std::int64_t>> alibi_slope_exponents(std::int64_t heads);

// Working bits: slope * (j - i) must keep the exact int64 distance (up to 65 bits) and the
// slope's 53+ bits with room: 192 for stored binary formats, output + 64 for MPFR.
template <class T>
unsigned alibi_wide_bits() {
  return std::is_same_v<T, mp_real> ? mp_output_bits() + 64 : 192;
}

template <class T>
std::vector<T> alibi_slopes(const spec& s) {
  using W = wide_t<T>;
  using std::pow;
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(alibi_wide_bits<T>());
  std::vector<T> out;
  for (const auto& [num, den] : alibi_slope_exponents(s.integer("heads"))) out.push_back(store_as<T>(pow(W(2), W(num) / W(den))));
  return out;
}

// bias [H, T, S]: -slope_h * (i - j) with i = qpos, j = kpos (causal=true: the decoder form,
// whose entries above the diagonal a causal mask removes), or -slope_h * |i - j| (causal=false).
// Real projects use the equivalent key-position form slope_h * j (BLOOM, and the paper's own
// code): it differs from -slope_h (i - j) by -slope_h i, a constant along each query row, and
// softmax(z + c) = softmax(z), so the two agree on every causal row.
template <class T>
tensor<T> alibi_bias(const spec& s, std::span<const std::int64_t> qpos, std::span<const std::int64_t> kpos) {
  using W = wide_t<T>;
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(alibi_wide_bits<T>());
  using std::abs;
  using std::pow;
  const auto exps = alibi_slope_exponents(s.integer("heads"));
  const bool causal = s.boolean("causal");
  const auto n_q = static_cast<std::int64_t>(qpos.size()), n_k = static_cast<std::int64_t>(kpos.size());
  tensor<T> out({static_cast<std::int64_t>(exps.size()), n_q, n_k});
  for (size_t h = 0; h < exps.size(); ++h) {
    const W slope = pow(W(2), W(exps[h].first) / W(exps[h].second));
    for (std::int64_t i = 0; i < n_q; ++i)
      for (std::int64_t j = 0; j < n_k; ++j) {
        // kpos - qpos as an exact wide value (positions are int64; the difference can exceed
        // int64). Written as slope * (j - i) and 0 - slope |j - i| so distance 0 gives +0, not -0.
        const W ahead = W(kpos[j]) - W(qpos[i]);
        out.data[static_cast<size_t>((static_cast<std::int64_t>(h) * n_q + i) * n_k + j)] =
            store_as<T>(causal ? slope * ahead : W(0) - slope * abs(ahead));
      }
  }
  return out;
}

}  // namespace pe
