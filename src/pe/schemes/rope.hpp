// RoPE: exact frequencies under every long-context scaling, the attention factor, and the ops inv_freq, rotate, matrix.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/phase.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// 2 pi in U: MPFR's constant for mp_real, the binary64 value otherwise.
template <class U>
U two_pi_in() {
  if constexpr (std::is_same_v<U, mp_real>) return two_pi();
  else return U(6.283185307179586);
}

// The frequency law of rope(...) with its scaling, written once for any scalar U. Definitions
// follow Hugging Face transformers' rope utilities (modeling_rope_utils.py, v5 era; each
// scaling below says where older versions differ) and, for magnitude=ggml, ggml's rope_yarn.
// omega_i is the frequency of pair i (i = 0 .. rotary_dim/2 - 1), before the rotation's
// position; HF calls it inv_freq.
struct rope_frequencies {
  std::int64_t rotary = 0;              // rotary_dim
  double base = 0;
  const real_list* freqs = nullptr;     // explicit frequencies (freqs=[...]), or null
  std::int64_t zeroed = 0;              // the lowest frequencies set to 0 (truncate_low)
  const spec* scaling = nullptr;        // null when unscaled
  std::optional<std::int64_t> seq_len;  // dynamic, longrope: spec's seq_len, else the call's max(pos)+1

  static rope_frequencies of(const spec& s, std::optional<std::int64_t> call_seq_len) {
    rope_frequencies f;
    f.rotary = s.integer("rotary_dim");
    f.base = s.real("base");
    if (s.has("freqs")) f.freqs = &s.reals("freqs");
    f.zeroed = static_cast<std::int64_t>(std::floor(s.real("truncate_low") * static_cast<double>(f.rotary / 2)));
    if (s.has("scaling")) {
      f.scaling = &s.nested("scaling");
      f.seq_len = f.scaling->has("seq_len") ? std::optional<std::int64_t>(f.scaling->integer("seq_len")) : call_seq_len;
    }
    return f;
  }
  int pairs() const { return static_cast<int>(rotary / 2); }

  template <class U>
  U omega(int i) const {
    using std::ceil;
    using std::floor;
    using std::log;
    using std::pow;
    if (i >= pairs() - zeroed) return U(0);  // p-RoPE: these pairs pass through unrotated
    const U r(rotary);
    const auto geometric = [&](const U& b) { return pow(b, U(-2 * i) / r); };
    const U plain = freqs ? U((*freqs)[i]) : geometric(U(base));
    if (!scaling) return plain;
    const spec& sc = *scaling;
    const std::string& kind = sc.scheme();
    if (kind == "linear") return plain / U(sc.real("factor"));
    if (kind == "ntk") {  // static NTK-aware: base * factor^(d/(d-2))
      return geometric(U(base) * pow(U(sc.real("factor")), r / (r - U(2))));
    }
    if (kind == "dynamic") {  // HF dynamic NTK, stateless: rescaled only while seq_len > original_max
      const std::int64_t original = sc.integer("original_max");
      if (!seq_len || *seq_len <= original) return plain;
      const U f(sc.real("factor"));
      return geometric(U(base) * pow(f * U(*seq_len) / U(original) - (f - U(1)), r / (r - U(2))));
    }
    if (kind == "llama3") {  // Meta/HF smoothing between the two wavelength bands
      const U f(sc.real("factor")), lo(sc.real("low_freq_factor")), hi(sc.real("high_freq_factor"));
      const U original(sc.integer("original_max"));
      const U wavelength = two_pi_in<U>() / plain;
      if (wavelength > original / lo) return plain / f;    // strictly longer than the low band: interpolate
      if (wavelength < original / hi) return plain;        // strictly shorter than the high band: keep
      const U s = (original / wavelength - lo) / (hi - lo);  // inclusive middle band: blend
      return (U(1) - s) * plain / f + s * plain;
    }
    if (kind == "yarn") {
      const U f(sc.real("factor")), original(sc.integer("original_max"));
      const auto correction_dim = [&](double rotations) {
        return r * log(original / (U(rotations) * two_pi_in<U>())) / (U(2) * log(U(base)));
      };
      U low = correction_dim(sc.real("beta_fast")), high = correction_dim(sc.real("beta_slow"));
      const bool ggml = sc.choice("magnitude") == "ggml";
      if (ggml || sc.boolean("truncate")) low = floor(low), high = ceil(high);
      low = std::max(low, U(0));
      high = std::min(high, r - U(1));
      U span = high - low;
      if (ggml) span = std::max(span, U(0.001));  // ggml: MAX(0.001, high - low)
      else if (low == high) span = U(0.001);       // HF: high += 0.001 when the range is empty
      const U ramp = std::clamp((U(i) - low) / span, U(0), U(1));  // 0: extrapolate, 1: interpolate
      return plain / f * ramp + plain * (U(1) - ramp);
    }
    if (kind == "longrope") {  // long factors once the sequence outgrows original_max
      const bool use_long = seq_len && *seq_len > sc.integer("original_max");
      return plain / U(sc.reals(use_long ? "long_factor" : "short_factor")[i]);
    }
    throw spec_error(fmt::format("rope: scaling '{}' has no frequency law", kind));
  }

  // The factor rotate multiplies cos and sin by (HF's attention_scaling; 1 without one).
  template <class U>
  U attention_factor() const {
    using std::log;
    using std::sqrt;
    if (!scaling) return U(1);
    const spec& sc = *scaling;
    if (sc.scheme() == "yarn") {
      const U f(sc.real("factor"));
      if (sc.choice("magnitude") == "ggml") {
        // ggml's rope_yarn multiplies its attn_factor by 1 + 0.1 ln(1/freq_scale) itself,
        // with no clamp for factor < 1 (llama.cpp divides it back out; HF never applies it).
        const U given = sc.has("attention_factor") ? U(sc.real("attention_factor")) : U(1);
        return given * (U(1) + U(0.1) * log(f));
      }
      if (sc.has("attention_factor")) return U(sc.real("attention_factor"));
      const auto mscale = [&](const U& m) { return f <= U(1) ? U(1) : U(0.1) * m * log(f) + U(1); };
      const bool ratio = sc.has("mscale") && sc.has("mscale_all_dim") && sc.real("mscale") != 0 &&
                         sc.real("mscale_all_dim") != 0;
      if (ratio) return mscale(U(sc.real("mscale"))) / mscale(U(sc.real("mscale_all_dim")));
      return mscale(U(1));
    }
    if (sc.scheme() == "longrope") {
      if (sc.has("attention_factor")) return U(sc.real("attention_factor"));
      const U original(sc.integer("original_max"));
      const U f = U(sc.integer("max_pos")) / original;
      return f <= U(1) ? U(1) : sqrt(U(1) + log(f) / log(original));
    }
    return U(1);
  }
};

// The pairs a layout rotates together: neox (HF rotate_half, GPT-NeoX, ggml NEOX) pairs
// (i, i + r/2); gptj (Meta's complex form, GPT-J, ggml NORMAL) pairs (2i, 2i+1).
inline std::pair<std::int64_t, std::int64_t> rope_pair(bool neox, std::int64_t i, std::int64_t pairs) {
  return neox ? std::pair{i, i + pairs} : std::pair{2 * i, 2 * i + 1};
}

// Working bits of the wide intermediates: 128 for stored binary formats, output + 64 for MPFR.
template <class T>
unsigned rope_wide_bits() {
  return std::is_same_v<T, mp_real> ? mp_output_bits() + 64 : wide_phase_bits;
}

// inv_freq: the effective frequencies [rotary_dim/2] and the attention factor [].
template <class T>
std::vector<named_tensor<T>> rope_inv_freq(const spec& s) {
  using W = wide_t<T>;
  const auto freq = rope_frequencies::of(s, std::nullopt);
  tensor<T> inv({freq.pairs()});
  tensor<T> factor(std::vector<std::int64_t>{});
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(rope_wide_bits<T>());
  for (int i = 0; i < freq.pairs(); ++i) inv.data[i] = store_as<T>(freq.omega<W>(i));
  factor.data[0] = store_as<T>(freq.attention_factor<W>());
  return {{"inv_freq", std::move(inv)}, {"attention_factor", std::move(factor)}};
}

// rotate: x [T, H, D] at positions [T] -> y = attention_factor * R_p x on the rotary dims;
// dims past rotary_dim pass through unchanged (unscaled, as HF concatenates them back).
// Each output is computed from exactly reduced phases in wide precision and rounded once.
template <class T>
tensor<T> rope_rotate(const spec& s, const tensor<double>& x, std::span<const std::int64_t> pos) {
  using W = wide_t<T>;
  const std::int64_t n_tok = x.shape.at(0), heads = x.shape.at(1), dim = x.shape.at(2);
  if (dim != s.integer("dim") || n_tok != static_cast<std::int64_t>(pos.size())) {
    throw input_error(fmt::format("rope: x has shape [{}] but the spec wants [{}, H, {}]", fmt::join(x.shape, ", "),
                                  pos.size(), s.integer("dim")));
  }
  const std::int64_t max_pos = pos.empty() ? 0 : *std::max_element(pos.begin(), pos.end());
  const auto freq = rope_frequencies::of(s, max_pos + 1);
  const int pairs = freq.pairs();
  const bool neox = s.choice("layout") == "neox";
  const phase_table<compute_t<T>> phases(freq, pairs);
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(rope_wide_bits<T>());
  const W factor = freq.attention_factor<W>();
  tensor<T> y(x.shape);
  const auto at = [&](std::int64_t t, std::int64_t h, std::int64_t d) { return static_cast<size_t>((t * heads + h) * dim + d); };
  for (std::int64_t t = 0; t < n_tok; ++t) {
    for (int i = 0; i < pairs; ++i) {
      const auto [sn, cs] = phases.sin_cos_wide(pos[t], i);
      const auto [a, b] = rope_pair(neox, i, pairs);
      for (std::int64_t h = 0; h < heads; ++h) {
        const W xa(x.data[at(t, h, a)]), xb(x.data[at(t, h, b)]);
        y.data[at(t, h, a)] = store_as<T>(factor * (cs * xa - sn * xb));
        y.data[at(t, h, b)] = store_as<T>(factor * (sn * xa + cs * xb));
      }
    }
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t d = freq.rotary; d < dim; ++d) y.data[at(t, h, d)] = store_as<T>(W(x.data[at(t, h, d)]));
  }
  return y;
}

// matrix: the block-diagonal D x D rotation R_p for one position (no attention factor;
// identity on the pass-through dims), so that rotate = attention_factor * R_p x there.
template <class T>
tensor<T> rope_matrix(const spec& s, std::int64_t p) {
  using W = wide_t<T>;
  const std::int64_t dim = s.integer("dim");
  const auto freq = rope_frequencies::of(s, p + 1);
  const int pairs = freq.pairs();
  const bool neox = s.choice("layout") == "neox";
  const phase_table<compute_t<T>> phases(freq, pairs);
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(rope_wide_bits<T>());
  tensor<T> r({dim, dim});
  for (auto& v : r.data) v = store_as<T>(W(0));
  for (std::int64_t d = freq.rotary; d < dim; ++d) r(d, d) = store_as<T>(W(1));
  for (int i = 0; i < pairs; ++i) {
    const auto [sn, cs] = phases.sin_cos_wide(p, i);
    const auto [a, b] = rope_pair(neox, i, pairs);
    r(a, a) = store_as<T>(cs);
    r(a, b) = store_as<T>(W(-sn));
    r(b, a) = store_as<T>(sn);
    r(b, b) = store_as<T>(cs);
  }
  return r;
}

}  // namespace pe
