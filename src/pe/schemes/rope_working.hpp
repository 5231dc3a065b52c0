// A model of how kernels compute rope's rotate — inputs and outputs in a storage type, arithmetic in a working type — for precision audits; never the reference.
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <type_traits>

#include "pe/schemes/rope.hpp"

namespace pe {

// rotate as a typical kernel computes it (HF's rotary module: frequencies, the angle
// position * inv_freq, cos and sin times the attention factor, then x cos + rotate_half(x) sin),
// with every operation in Work (float or double) and x and y rounded to Store (double, float,
// bf16, fp16). The frequencies are rope's own formula evaluated in Work arithmetic, and the
// position is converted to Work, as HF's position_ids.float() does: above 2^24 a float Work
// merges neighbouring positions. This is what an implementation's error is measured against
// *in kind*; the exact reference is rope_rotate, and the two must never be confused.
template <class Work, class Store>
tensor<Store> rope_rotate_working(const spec& s, const tensor<double>& x, std::span<const std::int64_t> pos) {
  static_assert(std::is_same_v<Work, float> || std::is_same_v<Work, double>, "Work is float or double");
  using std::cos;
  using std::sin;
  const auto plan = rope_plan(s, call_seq_len(pos));
  const std::int64_t tokens = x.shape.at(0), heads = x.shape.at(1), dim = x.shape.at(2);
  if (dim != plan.dim || static_cast<std::int64_t>(pos.size()) != tokens) {
    throw input_error(fmt::format("x has shape [{}] and {} positions, but the spec wants x [T, H, {}] with T positions",
                                  fmt::join(x.shape, ", "), pos.size(), plan.dim));
  }
  std::vector<Work> inv_freq;
  for (size_t k = 0; k < plan.pairs.size(); ++k) inv_freq.push_back(plan.freq.template omega<Work>(static_cast<int>(k)));
  const Work factor = plan.freq.template attention_factor<Work>();
  const auto stored = [](double v) { return static_cast<Work>(static_cast<double>(Store(v))); };  // x rounded to Store
  tensor<Store> y(x.shape);
  const auto at = [&](std::int64_t t, std::int64_t h, std::int64_t d) { return static_cast<size_t>((t * heads + h) * dim + d); };
  for (std::int64_t t = 0; t < tokens; ++t) {
    const Work p = static_cast<Work>(pos[t]);
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t d = plan.freq.rotary; d < dim; ++d) y.data[at(t, h, d)] = Store(stored(x.data[at(t, h, d)]));
    for (size_t k = 0; k < plan.pairs.size(); ++k) {
      const Work angle = p * inv_freq[k];
      const Work c = cos(angle) * factor, sn = sin(angle) * factor;
      const auto& pr = plan.pairs[k];
      for (std::int64_t h = 0; h < heads; ++h) {
        const Work xa = stored(x.data[at(t, h, pr.a)]), xb = stored(x.data[at(t, h, pr.b)]);
        y.data[at(t, h, pr.a)] = Store(xa * c - xb * sn);
        y.data[at(t, h, pr.b)] = Store(xb * c + xa * sn);
      }
    }
  }
  return y;
}

}  // namespace pe
