// RoPE: exact frequencies under every long-context scaling, the attention factor, and the ops inv_freq, rotate, matrix.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/exact_number.hpp"
#include "pe/phase.hpp"
#include "pe/schemes/rotation.hpp"
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

// The scalings whose frequencies read a sequence length (the spec's seq_len, else the call's):
// dynamic NTK and LongRoPE.
inline bool scaling_reads_length(const spec& scaling) { return scaling.scheme() == "dynamic" || scaling.scheme() == "longrope"; }

// A sequence length as a number: INT64_MAX is 2^63, the length of a call that reaches position
// INT64_MAX (seq_len_after). Exact in every scalar: 2^62 * 2 is a power of two.
template <class U>
U length_value(std::int64_t n) {
  return n == std::numeric_limits<std::int64_t>::max() ? U(std::int64_t{1} << 62) * U(2) : U(n);
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
  // dynamic, longrope: spec's seq_len, else the call's max(pos)+1; kept only where it changes the
  // frequencies (dynamic beyond original_max, longrope's long factors), so that calls of other
  // lengths share one cached table (frequency_cache.hpp).
  std::optional<std::int64_t> seq_len;
  // base and freqs as written where they are expressions (base=1e4*pi, freqs=[pi/4]), else null:
  // the MPFR path reads them exactly, binary formats read base and *freqs, their rounded doubles.
  std::shared_ptr<const exact_number> exact_base;
  std::vector<std::shared_ptr<const exact_number>> exact_freqs;

  static rope_frequencies of(const spec& s, std::optional<std::int64_t> call_seq_len) {
    rope_frequencies f;
    f.rotary = s.integer("rotary_dim");
    f.base = s.real("base");
    f.exact_base = s.expression("base");
    if (s.has("freqs")) f.freqs = &s.reals("freqs"), f.exact_freqs = item_expressions(s, "freqs");
    f.zeroed = static_cast<std::int64_t>(std::floor(s.real("truncate_low") * static_cast<double>(f.rotary / 2)));
    if (s.has("scaling")) {
      f.scaling = &s.nested("scaling");
      f.seq_len = f.scaling->has("seq_len") ? std::optional<std::int64_t>(f.scaling->integer("seq_len")) : call_seq_len;
      if (!scaling_reads_length(*f.scaling)) {
        f.seq_len = std::nullopt;
      } else if (f.seq_len) {
        const std::int64_t original = f.scaling->integer("original_max");
        if (f.scaling->scheme() == "longrope") f.seq_len = *f.seq_len > original ? original + 1 : 0;  // long or short factors
        else if (*f.seq_len <= original) f.seq_len = std::nullopt;                                    // plain frequencies
      }
    }
    return f;
  }
  int pairs() const { return static_cast<int>(rotary / 2); }

  // Every field omega and attention_factor read, so that equal keys mean equal frequencies
  // (frequency_cache.hpp): a new field must join the key.
  // Expressions join it by their text: pi/4 and its rounded double are different frequencies.
  std::string cache_key() const {
    std::string exact = exact_base ? exact_base->text() : "-";
    for (const auto& e : exact_freqs) exact += "," + (e ? e->text() : "");
    return fmt::format("rope:{}:{:a}:{}:{}:{}:{}:{}", rotary, base, freqs ? fmt::format("{:a}", fmt::join(*freqs, ",")) : "-", zeroed,
                       scaling ? scaling->text() : "-", seq_len ? std::to_string(*seq_len) : "-", exact);
  }

  template <class U>
  U omega(int i) const {
    using std::pow;
    if (i >= pairs() - zeroed) return U(0);  // p-RoPE: these pairs pass through unrotated
    const U r(rotary);
    const auto geometric = [&](const U& b) { return pow(b, U(-2 * i) / r); };
    const U plain = omega_unscaled<U>(i);
    if (!scaling) return plain;
    const spec& sc = *scaling;
    const std::string& kind = sc.scheme();
    if (kind == "linear") return plain / real_as<U>(sc, "factor");
    if (kind == "ntk") {  // static NTK-aware: base * factor^(d/(d-2))
      return geometric(base_as<U>() * pow(real_as<U>(sc, "factor"), r / (r - U(2))));
    }
    if (kind == "dynamic") {  // HF dynamic NTK, stateless: rescaled only while seq_len > original_max
      const std::int64_t original = sc.integer("original_max");
      if (!seq_len || *seq_len <= original) return plain;
      const U f = real_as<U>(sc, "factor");
      return geometric(base_as<U>() * pow(f * length_value<U>(*seq_len) / U(original) - (f - U(1)), r / (r - U(2))));
    }
    if (kind == "llama3") {  // Meta/HF smoothing between the two wavelength bands
      const U f = real_as<U>(sc, "factor");
      const U original(sc.integer("original_max"));
      const U lo = real_as<U>(sc, "low_freq_factor"), hi = real_as<U>(sc, "high_freq_factor");
      const U wavelength = two_pi_in<U>() / plain;
      if (wavelength > original / lo) return plain / f;    // strictly longer than the low band: interpolate
      if (wavelength < original / hi) return plain;        // strictly shorter than the high band: keep
      const U s = llama3_smooth(plain);                     // inclusive middle band: blend
      return (U(1) - s) * plain / f + s * plain;
    }
    if (kind == "yarn") {
      const U f = real_as<U>(sc, "factor");
      const U ramp = std::clamp(yarn_ramp<U>(i), U(0), U(1));  // 0: extrapolate, 1: interpolate
      return plain / f * ramp + plain * (U(1) - ramp);
    }
    if (kind == "longrope") {  // long factors once the sequence outgrows original_max
      const bool use_long = seq_len && *seq_len > sc.integer("original_max");
      return plain / real_item_as<U>(sc, use_long ? "long_factor" : "short_factor", static_cast<std::size_t>(i));
    }
    throw spec_error(fmt::format("rope: scaling '{}' has no frequency law", kind));
  }

  // Where the scaling blends the interpolated and the original frequency of pair i (omega =
  // plain (w / factor + 1 - w), w in [0, 1]), the weight w before it is clamped: YaRN's ramp,
  // Llama 3's 1 - smooth. nullopt for other scalings. The gate's error model reads it
  // (proofs/gate_tolerance.md): a kernel's w carries rounding, and w outside [0, 1] is clamped.
  template <class U>
  std::optional<U> interpolation_weight(int i) const {
    if (!scaling || i >= pairs() - zeroed) return std::nullopt;  // explicit freqs blend too (llama3)
    if (scaling->scheme() == "yarn") return yarn_ramp<U>(i);
    if (scaling->scheme() == "llama3") return U(1) - llama3_smooth(omega_unscaled<U>(i));
    return std::nullopt;
  }

  // The frequency of pair i before any scaling (explicit freqs, or base^(-2i/r)).
  template <class U>
  U omega_unscaled(int i) const {
    using std::pow;
    if (!freqs) return pow(base_as<U>(), U(-2 * i) / U(rotary));
    const auto item = static_cast<std::size_t>(i);
    return exact_or<U>(item < exact_freqs.size() ? exact_freqs[item] : nullptr, (*freqs)[item]);
  }
  // base in U: exact at MPFR precision where it was written as an expression.
  template <class U>
  U base_as() const {
    return exact_or<U>(exact_base, base);
  }

  // YaRN's correction range [low, high] in pair indices before any truncation or clamping:
  // the pairs that turn beta_fast and beta_slow times over original_max.
  template <class U>
  std::pair<U, U> yarn_correction_range() const {
    using std::log;
    const spec& sc = *scaling;
    const U r(rotary), original(sc.integer("original_max"));
    const auto correction_dim = [&](const U& rotations) {
      return r * log(original / (rotations * two_pi_in<U>())) / (U(2) * log(base_as<U>()));
    };
    return {correction_dim(real_as<U>(sc, "beta_fast")), correction_dim(real_as<U>(sc, "beta_slow"))};
  }
  // Whether YaRN floors low and ceils high (ggml always; HF unless truncate=false).
  bool yarn_truncates() const { return scaling->choice("magnitude") == "ggml" || scaling->boolean("truncate"); }

  // YaRN's ramp as it is applied: low (after truncation and clamping) and the span it divides by.
  template <class U>
  std::pair<U, U> yarn_ramp_range() const {
    using std::ceil;
    using std::floor;
    const U r(rotary);
    auto [low, high] = yarn_correction_range<U>();
    if (yarn_truncates()) low = floor(low), high = ceil(high);
    low = std::max(low, U(0));
    high = std::min(high, r - U(1));
    U span = high - low;
    // The constants 0.001 and 0.1 below are exact decimals (U(1) / U(1000)), as the papers write
    // them; implementations' float or double literals differ by at most an ulp of their type.
    const U thousandth = U(1) / U(1000);
    if (scaling->choice("magnitude") == "ggml") span = std::max(span, thousandth);  // ggml: MAX(0.001, high - low)
    else if (low == high) span = thousandth;                                       // HF: high += 0.001 when the range is empty
    return {low, span};
  }

  // YaRN's ramp position (i - low) / span before clamping: 0 extrapolates, 1 interpolates.
  template <class U>
  U yarn_ramp(int i) const {
    const auto [low, span] = yarn_ramp_range<U>();
    return (U(i) - low) / span;
  }

  // Llama 3's smoothing (original / wavelength - low_freq_factor) / (high - low) of an unscaled
  // frequency; in [0, 1] inside the middle band. With equal factors the band is one wavelength
  // and the smoothing a step: 0 past it (divided), 1 at or before it (kept; HF's 0/0 there is NaN,
  // Meta's a ZeroDivisionError: a wavelength of exactly original/low needs pi rational).
  template <class U>
  U llama3_smooth(const U& plain) const {
    const spec& sc = *scaling;
    const U lo = real_as<U>(sc, "low_freq_factor"), hi = real_as<U>(sc, "high_freq_factor"), original(sc.integer("original_max"));
    const U turns = original / (two_pi_in<U>() / plain);  // original / wavelength
    if (hi == lo) return turns >= lo ? U(1) : U(0);
    return (turns - lo) / (hi - lo);
  }

  // The factor rotate multiplies cos and sin by (HF's attention_scaling; 1 without one).
  template <class U>
  U attention_factor() const {
    using std::log;
    using std::sqrt;
    if (!scaling) return U(1);
    const spec& sc = *scaling;
    if (sc.scheme() == "yarn") {
      const U f = real_as<U>(sc, "factor");
      if (sc.choice("magnitude") == "ggml") {
        // ggml's rope_yarn multiplies its attn_factor by 1 + 0.1 ln(1/freq_scale) itself,
        // with no clamp for factor < 1 (llama.cpp divides it back out; HF never applies it).
        const U given = sc.has("attention_factor") ? real_as<U>(sc, "attention_factor") : U(1);
        return given * (U(1) + log(f) / U(10));
      }
      if (sc.has("attention_factor")) return real_as<U>(sc, "attention_factor");
      const auto mscale = [&](const U& m) { return f <= U(1) ? U(1) : m * log(f) / U(10) + U(1); };
      const bool ratio = sc.has("mscale") && sc.has("mscale_all_dim") && sc.real("mscale") != 0 &&
                         sc.real("mscale_all_dim") != 0;
      if (ratio) return mscale(real_as<U>(sc, "mscale")) / mscale(real_as<U>(sc, "mscale_all_dim"));
      return mscale(U(1));
    }
    if (sc.scheme() == "longrope") {
      if (sc.has("attention_factor")) return real_as<U>(sc, "attention_factor");
      const U original(sc.integer("original_max"));
      // HF v5: an explicit factor, else max_position_embeddings / original_max_position_embeddings.
      const U f = sc.has("factor") ? real_as<U>(sc, "factor") : U(sc.integer("max_pos")) / original;
      return f <= U(1) ? U(1) : sqrt(U(1) + log(f) / log(original));
    }
    return U(1);
  }
};

// rope's plan: one position axis, the layout's pairs over rotary_dim, and its scaled frequencies.
inline rotation_plan<rope_frequencies> rope_plan(const spec& s, std::optional<std::int64_t> seq_len) {
  const auto freq = rope_frequencies::of(s, seq_len);
  // neox (HF rotate_half, GPT-NeoX, ggml NEOX) pairs (i, i + r/2); gptj (Meta's complex form,
  // GPT-J, ggml NORMAL) pairs (2i, 2i+1).
  rotation_plan<rope_frequencies> plan{s.integer("dim"), 1, {}, freq, {}};
  add_block(plan, s.choice("layout") == "neox", 0, freq.rotary);
  return plan;
}

// The sequence length a call implies: max(pos) + 1 (dynamic and longrope read it). At
// pos = INT64_MAX the length 2^63 does not fit in int64: INT64_MAX stands for it, and
// length_value reads it back as 2^63 (an explicit seq_len is at most 2^40, so only a call's
// length takes that value).
inline std::int64_t seq_len_after(std::int64_t max_pos) {
  return max_pos == std::numeric_limits<std::int64_t>::max() ? max_pos : max_pos + 1;
}
inline std::int64_t call_seq_len(std::span<const std::int64_t> pos) {
  return pos.empty() ? 0 : seq_len_after(*std::max_element(pos.begin(), pos.end()));
}

// Positions where a scaling changes behaviour, for test draws: for the scalings that read the
// call's length (dynamic, longrope without seq_len) the largest positions original_max - 2,
// original_max - 1 and original_max (call lengths original_max - 1, original_max, original_max + 1:
// the switch is at seq_len > original_max); Llama 3's band edges original_max / low_freq_factor and
// original_max / high_freq_factor in positions (wavelengths), and the wavelengths of YaRN's ramp
// ends, each with its neighbours. Empty for everything else.
inline std::vector<std::int64_t> rope_boundary_positions(const spec& s) {
  std::vector<std::int64_t> out;
  if (!s.has("scaling")) return out;
  const auto freq = rope_frequencies::of(s, std::nullopt);
  const spec& sc = *freq.scaling;
  const auto around = [&](double centre) {
    const auto c = static_cast<std::int64_t>(std::llround(centre));
    for (const std::int64_t p : {c - 1, c, c + 1})
      if (p >= 0) out.push_back(p);
  };
  const bool reads_length = scaling_reads_length(sc) && !sc.has("seq_len");
  if (reads_length) around(static_cast<double>(sc.integer("original_max")) - 1);
  if (sc.scheme() == "llama3") {
    const double original = static_cast<double>(sc.integer("original_max"));
    around(original / sc.real("low_freq_factor"));
    around(original / sc.real("high_freq_factor"));
  }
  if (sc.scheme() == "yarn") {
    const double r = static_cast<double>(freq.rotary);
    const auto [low, span] = freq.yarn_ramp_range<double>();
    for (const double edge : {low, low + span}) {
      const double pair = std::clamp(std::round(edge), 0.0, r / 2 - 1);
      around(two_pi_in<double>() / freq.omega_unscaled<double>(static_cast<int>(pair)));
    }
  }
  return out;
}

// The ops on rope's own plan (tests read them directly; run_op goes through the registry's plan).
template <class T>
std::vector<named_tensor<T>> rope_inv_freq(const spec& s) {
  return plan_inv_freq<T>(rope_plan(s, std::nullopt));
}
template <class T>
tensor<T> rope_rotate(const spec& s, const tensor<double>& x, std::span<const std::int64_t> pos) {
  return rotate_pairs<T>(rope_plan(s, call_seq_len(pos)), x, pos);
}
template <class T>
tensor<T> rope_matrix(const spec& s, std::int64_t p) {
  return rotation_matrix<T>(rope_plan(s, seq_len_after(p)), std::span<const std::int64_t>(&p, 1));
}

}  // namespace pe
