// Axial and multimodal RoPE: rope_nd (one sub-space per position axis) and mrope (Qwen2-VL / Qwen3-VL sections).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "pe/schemes/rope.hpp"
#include "pe/schemes/rotation.hpp"
#include "pe/spec.hpp"

namespace pe {

// rope_nd: pair k rotates within the block of its axis a with local index i, at
// omega = base^(-2i/d_a) (Flux's EmbedND, EVA-02's 2-D form; seed 003's n-D extension).
struct axial_frequencies {
  double base = 0;
  std::vector<std::pair<std::int64_t, std::int64_t>> local;  // per pair: (d_a, i)
  // base as written where it is an expression (base=1e4*pi), else null: exact at MPFR precision.
  std::shared_ptr<const exact_number> exact_base = nullptr;
  // Every field omega reads (frequency_cache.hpp).
  std::string cache_key() const {
    std::string key = fmt::format("axial:{:a}:{}", base, exact_base ? exact_base->text() : "-");
    for (const auto& [d, i] : local) key += fmt::format(":{}/{}", d, i);
    return key;
  }
  template <class U>
  U omega(int k) const {
    using std::pow;
    const auto [d, i] = local[static_cast<size_t>(k)];
    return pow(exact_or<U>(exact_base, base), U(-2 * i) / U(d));
  }
  template <class U>
  U attention_factor() const {
    return U(1);
  }
};

// The axes as integers (validated in the registry: positive and even).
inline std::vector<std::int64_t> axis_dims(const spec& s) {
  std::vector<std::int64_t> out;
  for (const double d : s.reals("axes")) out.push_back(static_cast<std::int64_t>(d));
  return out;
}

// Axis a owns dims [d_0 + ... + d_(a-1), ... + d_a) and reads position column a.
inline rotation_plan<axial_frequencies> rope_nd_plan(const spec& s) {
  const auto axes = axis_dims(s);
  rotation_plan<axial_frequencies> plan{0, static_cast<int>(axes.size()), {}, {s.real("base"), {}, s.expression("base")}, {}};
  const bool neox = s.choice("layout") == "neox";
  for (size_t a = 0; a < axes.size(); ++a) {
    add_block(plan, neox, plan.dim, axes[a], static_cast<int>(a));
    for (std::int64_t i = 0; i < axes[a] / 2; ++i) plan.freq.local.emplace_back(axes[a], i);
    plan.dim += axes[a];
  }
  return plan;
}

// mrope: the plain frequencies base^(-2j/dim) in neox pairs (j, j + dim/2), each pair reading
// the t, h or w position. sections = [s_t, s_h, s_w] count pairs. Qwen2-VL (interleaved=false):
// j < s_t uses t, then s_h pairs use h, then w. Qwen3-VL (interleaved=true): j % 3 == 1 and
// j < 3 s_h use h, j % 3 == 2 and j < 3 s_w use w, every other pair uses t.
inline rotation_plan<rope_frequencies> mrope_plan(const spec& s) {
  const std::int64_t dim = s.integer("dim"), half = dim / 2;
  const auto& sec = s.reals("sections");
  const auto st = static_cast<std::int64_t>(sec[0]), sh = static_cast<std::int64_t>(sec[1]),
             sw = static_cast<std::int64_t>(sec[2]);
  rope_frequencies freq;
  freq.rotary = dim;
  freq.base = s.real("base");
  freq.exact_base = s.expression("base");  // an expression's exact value at MPFR precision (pe/exact_number.hpp)
  rotation_plan<rope_frequencies> plan{dim, 3, {}, freq, {}};
  add_block(plan, s.choice("layout") == "neox", 0, dim);  // pair j's dims; its frequency and section are j's either way
  const bool interleaved = s.boolean("interleaved");
  for (std::int64_t j = 0; j < half; ++j) {
    int axis = 0;
    if (interleaved) axis = (j % 3 == 1 && j < 3 * sh) ? 1 : (j % 3 == 2 && j < 3 * sw) ? 2 : 0;
    else axis = j < st ? 0 : j < st + sh ? 1 : 2;
    plan.pairs[static_cast<size_t>(j)].axis = axis;
  }
  return plan;
}

}  // namespace pe
