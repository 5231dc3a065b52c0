// KERPLE (Chi et al. 2022): the logarithmic and power kernel biases, per head, on |i - j|.
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include "pe/exact_number.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// Working bits: r2 |i - j| keeps a binary64 r2 and the exact 64-bit distance (117 bits), so the
// product is exact before log1p: 192 for stored binary formats, output + 64 for MPFR (an r2
// written as an expression, pi/8, is its value rounded to these bits). log1p, not log(1 + x):
// 1 + r2 |i - j| rounds to 1 at any fixed precision once r2 |i - j| is below its epsilon (r2 =
// 1e-50 lost 1.96e7 ulp at binary64, and 1e-97 gave 0 at 256 bits).
template <class T>
unsigned kerple_wide_bits() {
  return std::is_same_v<T, mp_real> ? mp_output_bits() + 64 : 192;
}

// bias [H, T, S] of head h, query position i = qpos, key position j = kpos:
//   variant=log:   -r1_h ln(1 + r2_h |i - j|)
//   variant=power: -r1_h |i - j|^r2_h     (0 < r2_h <= 2; 0^r2 = 0)
// (the paper's kernels; chijames/KERPLE evaluates the causal half j <= i). Symmetric in i - j,
// so one bias serves encoders and decoders. Computed wide and rounded once; distance 0 gives +0.
template <class T>
tensor<T> kerple_bias(const spec& s, std::span<const std::int64_t> qpos, std::span<const std::int64_t> kpos) {
  using W = wide_t<T>;
  using std::abs;
  using std::log1p;
  using std::pow;
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(kerple_wide_bits<T>());
  const bool power = s.choice("variant") == "power";
  const auto heads = static_cast<std::int64_t>(s.reals("r1").size());
  const auto n_q = static_cast<std::int64_t>(qpos.size()), n_k = static_cast<std::int64_t>(kpos.size());
  tensor<T> out({heads, n_q, n_k});
  for (std::int64_t h = 0; h < heads; ++h) {
    // r1 and r2 exact at MPFR precision where written as expressions (pe/exact_number.hpp).
    const W a = real_item_as<W>(s, "r1", static_cast<size_t>(h)), b = real_item_as<W>(s, "r2", static_cast<size_t>(h));
    for (std::int64_t i = 0; i < n_q; ++i)
      for (std::int64_t j = 0; j < n_k; ++j) {
        const W distance = abs(W(qpos[i]) - W(kpos[j]));  // exact: up to 2^64 in W's >= 192 bits
        const W kernel = power ? (distance == W(0) ? W(0) : pow(distance, b)) : log1p(b * distance);
        out.data[static_cast<size_t>((h * n_q + i) * n_k + j)] = store_as<T>(W(0) - a * kernel);
      }
  }
  return out;
}

}  // namespace pe
