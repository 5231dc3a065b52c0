// Registry entries of rope and its scalings (family rope_scaling), with their cross-field checks.
#include "pe/schemes/rope.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

std::string positive(double x) { return x > 0 ? std::string() : std::string("must be > 0"); }

param_info optional_param(param_info p) {
  p.optional = true;
  p.default_value.reset();
  return p;
}

param_info factor_param() { return real_param("factor", "context extension factor s (> 0)", std::nullopt, positive); }

param_info original_max_param(const char* hf_name) {
  return integer_param("original_max", fmt::format("the trained context length (HF: {})", hf_name), std::nullopt, 1,
                       max_table_length);
}

param_info seq_len_param() {
  return optional_param(integer_param("seq_len", "sequence length the scaling sees (default: max(pos)+1 of the call)",
                                      std::nullopt, 1, max_table_length));
}

param_info list_param(std::string name, std::string doc) {
  param_info p{std::move(name), param_kind::real_list, std::move(doc)};
  return p;
}

std::vector<scheme_info> scalings() {
  std::vector<scheme_info> out;
  out.push_back({"linear", "rope_scaling", "position interpolation: every frequency divided by factor",
                 {factor_param()}, {}, {}});
  out.push_back({"ntk", "rope_scaling", "static NTK-aware: base * factor^(r/(r-2)), r = rotary_dim",
                 {factor_param()}, {}, {}});
  out.push_back({"dynamic", "rope_scaling",
                 "HF dynamic NTK: base * (factor*seq_len/original_max - (factor-1))^(r/(r-2)) once seq_len > "
                 "original_max, else unscaled; stateless (HF keeps a growing cache)",
                 {factor_param(), original_max_param("max_position_embeddings"), seq_len_param()}, {}, {}});
  scheme_info yarn{
      "yarn", "rope_scaling",
      "YaRN: linear ramp between extrapolated and interpolated frequencies over the correction range of "
      "beta_fast..beta_slow rotations; attention factor 0.1 ln(factor) + 1 (or mscale/mscale_all_dim ratio, or "
      "explicit). magnitude=ggml multiplies by ggml's own 1 + 0.1 ln(factor) instead",
      {factor_param(), original_max_param("original_max_position_embeddings"),
       real_param("beta_fast", "rotations where extrapolation ends", 32.0, positive),
       real_param("beta_slow", "rotations where interpolation starts", 1.0, positive),
       boolean_param("truncate", "floor/ceil the correction range (HF truncate)", true, "an unrounded YaRN range",
                     "a floored/ceiled YaRN range"),
       optional_param(real_param("attention_factor", "explicit attention factor", std::nullopt, positive)),
       optional_param(real_param("mscale", "DeepSeek-style mscale numerator", std::nullopt)),
       optional_param(real_param("mscale_all_dim", "DeepSeek-style mscale denominator", std::nullopt)),
       choice_param("magnitude", "hf: HF's attention factor; ggml: ggml rope_yarn's built-in 1 + 0.1 ln(factor)", "hf",
                    {"hf", "ggml"}, {"HF's attention factor", "ggml's magnitude 1 + 0.1 ln(factor)"})},
      {},
      [](const spec& s) {
        if (!(s.real("beta_fast") > s.real("beta_slow"))) {
          throw spec_error(fmt::format("yarn: beta_fast={} must be > beta_slow={}", s.real("beta_fast"), s.real("beta_slow")));
        }
        if (s.choice("magnitude") == "ggml" && !s.boolean("truncate")) {
          throw spec_error("yarn: magnitude=ggml always truncates the correction range; truncate=false is not ggml");
        }
        if (s.choice("magnitude") == "ggml" && (s.has("mscale") || s.has("mscale_all_dim"))) {
          throw spec_error("yarn: magnitude=ggml takes ggml's attn_factor as attention_factor; mscale and mscale_all_dim are HF's");
        }
      }};
  out.push_back(yarn);
  out.push_back({"llama3", "rope_scaling",
                 "Llama 3.1: frequencies with wavelength > original_max/low_freq_factor divided by factor, "
                 "< original_max/high_freq_factor kept, smoothly blended between (no band when the two factors are equal)",
                 {factor_param(), real_param("low_freq_factor", "low band edge", 1.0, positive),
                  real_param("high_freq_factor", "high band edge", 4.0, positive),
                  original_max_param("original_max_position_embeddings")},
                 {},
                 [](const spec& s) {
                   // Equal factors leave no band to blend (Llama 4 Scout: both 1): every frequency is either
                   // kept or divided, as HF computes it.
                   if (!(s.real("high_freq_factor") >= s.real("low_freq_factor"))) {
                     throw spec_error(fmt::format("llama3: high_freq_factor={} must be >= low_freq_factor={}",
                                                  s.real("high_freq_factor"), s.real("low_freq_factor")));
                   }
                 }});
  out.push_back({"longrope", "rope_scaling",
                 "LongRoPE (Phi-3): frequencies divided by per-pair factors, long_factor once seq_len > original_max; "
                 "attention factor sqrt(1 + ln(s)/ln(original_max)), s = max_pos/original_max",
                 {list_param("short_factor", "per-pair factors up to original_max (rotary_dim/2 values)"),
                  list_param("long_factor", "per-pair factors past original_max (rotary_dim/2 values)"),
                  original_max_param("original_max_position_embeddings"),
                  integer_param("max_pos", "the extended context (HF: max_position_embeddings)", std::nullopt, 1,
                                max_table_length),
                  seq_len_param(),
                  optional_param(real_param("factor", "the extension factor s (default max_pos/original_max)", std::nullopt, positive)),
                  optional_param(real_param("attention_factor", "explicit attention factor", std::nullopt, positive))},
                 {},
                 [](const spec& s) {
                   if (s.integer("original_max") < 2) {
                     throw spec_error(fmt::format("longrope: original_max={} makes ln(original_max) = 0 in the attention factor; use >= 2",
                                                  s.integer("original_max")));
                   }
                 }});
  return out;
}

void validate_rope(const spec& s) {
  const std::int64_t dim = s.integer("dim"), rotary = s.integer("rotary_dim");
  // rotary_dim defaults to dim: name the field the user typed (rope(dim=127) has no rotary_dim).
  if (rotary % 2 && rotary == dim) throw spec_error(fmt::format("rope: dim={} is odd; RoPE rotates pairs, so the rotated dims (rotary_dim, default dim) must be even", dim));
  if (rotary % 2) throw spec_error(fmt::format("rope: rotary_dim={} is odd; rotation pairs need an even rotary_dim", rotary));
  if (rotary > dim) throw spec_error(fmt::format("rope: rotary_dim={} must be <= dim={}", rotary, dim));
  const std::int64_t pairs = rotary / 2;
  if (s.has("freqs")) {
    const auto& f = s.reals("freqs");
    if (static_cast<std::int64_t>(f.size()) != pairs) {
      throw spec_error(fmt::format("rope: freqs has {} values; rotary_dim={} needs {}", f.size(), rotary, pairs));
    }
    for (double w : f)
      if (w < 0) throw spec_error(fmt::format("rope: freqs has {}, which is negative", w));
  }
  const double cut = s.real("truncate_low");
  if (cut < 0 || cut >= 1) throw spec_error(fmt::format("rope: truncate_low={} must be in [0, 1)", cut));
  if (!s.has("scaling")) return;
  const spec& sc = s.nested("scaling");
  const std::string& kind = sc.scheme();
  if (s.has("freqs") && (kind == "ntk" || kind == "dynamic" || kind == "yarn")) {
    throw spec_error(fmt::format("rope: scaling={} derives its frequencies from base; it cannot be combined with freqs", kind));
  }
  if ((kind == "ntk" || kind == "dynamic") && rotary < 4) {
    throw spec_error(fmt::format("rope: scaling={} raises base to r/(r-2) and needs rotary_dim >= 4, not {}", kind, rotary));
  }
  if (kind == "longrope") {
    for (const char* key : {"short_factor", "long_factor"}) {
      const auto& f = sc.reals(key);
      if (static_cast<std::int64_t>(f.size()) != pairs) {
        throw spec_error(fmt::format("rope: scaling: longrope: {} has {} values; rotary_dim={} needs {}", key, f.size(),
                                     rotary, pairs));
      }
      for (double x : f)
        if (!(x > 0)) throw spec_error(fmt::format("rope: scaling: longrope: {} has {}, which is not > 0", key, x));
    }
  }
}

scheme_info rope_info() {
  param_info scaling{"scaling", param_kind::scheme, "long-context scaling: linear, ntk, dynamic, yarn, llama3, longrope"};
  scaling.family = "rope_scaling";
  scaling.optional = true;
  param_info freqs{"freqs", param_kind::real_list, "explicit frequencies omega_i, rotary_dim/2 values (overrides base)"};
  freqs.optional = true;
  scheme_info rope{
      "rope", "encoding",
      "rotary position embedding: rotate returns attention_factor * R_p x (HF multiplies cos and sin by it); "
      "dims past rotary_dim pass through unchanged",
      {integer_param("dim", "head dimension D", std::nullopt, 2, max_dim),
       real_param("base", "frequency base: omega_i = base^(-2i/rotary_dim)", 10000.0,
                  [](double b) { return b > 1 ? std::string() : std::string("must be > 1"); }),
       optional_param(integer_param("rotary_dim", "rotated dims (default dim; HF partial_rotary_factor * dim)",
                                    std::nullopt, 2, max_dim)),
       choice_param("layout", "neox pairs (i, i + r/2), HF rotate_half; gptj pairs (2i, 2i+1), Meta/GPT-J", "neox",
                    {"neox", "gptj"}, {"NeoX's rotate-half pairs", "GPT-J's interleaved pairs"}),
       freqs,
       real_param("truncate_low", "fraction of the lowest frequencies set to 0 (p-RoPE): floor(f * r/2) pairs", 0.0),
       scaling},
      {"inv_freq", "rotate", "rotate_grad", "rotate_qk", "apply_tables", "matrix", "attend"},
      validate_rope};
  rope.complete = [](std::vector<std::pair<std::string, value>>& values) {
    // rotary_dim defaults to dim, filled in so the canonical text names it.
    const auto has = [&](const char* k) {
      return std::any_of(values.begin(), values.end(), [&](const auto& kv) { return kv.first == k; });
    };
    if (has("rotary_dim")) return;
    const auto dim = std::find_if(values.begin(), values.end(), [](const auto& kv) { return kv.first == "dim"; });
    const auto after_base = std::find_if(values.begin(), values.end(), [](const auto& kv) { return kv.first == "base"; });
    values.insert(after_base + 1, {"rotary_dim", dim->second});
  };
  return rope;
}

scheme_behaviour rope_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::rotary;
  b.head_dim = [](const spec& s) { return s.integer("dim"); };
  b.rotation_plan = [](const spec& s, std::optional<std::int64_t> seq_len) { return as_rotary(rope_plan(s, seq_len)); };
  // dynamic NTK and LongRoPE without seq_len pick their frequencies from the call's max(pos) + 1.
  b.reads_call_length = [](const spec& s) {
    if (!s.has("scaling")) return false;
    const spec& sc = s.nested("scaling");
    return scaling_reads_length(sc) && !sc.has("seq_len");
  };
  b.boundary_positions = rope_boundary_positions;
  return b;
}

// The scalings first: rope's scaling parameter names their family.
const nested_scheme_registration registered_scalings{10, scalings()};
const scheme_registration registered_rope{10, rope_info(), rope_behaviour()};

}  // namespace

}  // namespace pe
