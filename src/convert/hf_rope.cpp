// RoPE settings of a HF config, read as transformers' modeling_rope_utils.py (v4.4x and v5) reads them.
#include "convert/hf_rope.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pe::convert {
namespace {

using kind = rotary_scaling::kind;

// A setting that several keys may carry: each present one, with the path that names it.
struct candidate {
  std::string path;
  double value;
};

// The one value the present candidates agree on; input_error naming two that disagree.
std::optional<candidate> agreed(const std::string& file, const std::vector<candidate>& present) {
  for (const auto& c : present) {
    if (c.value != present.front().value) {
      throw input_error(fmt::format("{}: {}={} and {}={} disagree", file, present.front().path, number_text(present.front().value), c.path,
                                    number_text(c.value)));
    }
  }
  if (present.empty()) return std::nullopt;
  return present.front();
}

void add_real(std::vector<candidate>& to, const config_node& node, std::string_view key) {
  if (const auto v = node.real(key)) to.push_back({node.path_of(key), *v});
}

double theta_of(const config_node& cfg, const rope_reading& how, std::vector<std::string>& notes) {
  if (how.local_base_key) {
    if (const auto local = cfg.real(*how.local_base_key)) return *local;
    // HF's Gemma3TextConfig: rope_local_base_freq = 10000.
    notes.push_back(fmt::format("{}: not in the config; 10000, HF's default for model_type {}", cfg.path_of(*how.local_base_key), how.family.model_type));
    return 10000;
  }
  std::vector<candidate> own, outer;
  if (how.params) add_real(own, *how.params, "rope_theta");
  add_real(outer, cfg, "rope_theta");
  add_real(outer, cfg, "rotary_emb_base");  // GPT-NeoX's name for it (v4)
  // A layer type's own theta wins over the top-level one (HF fills it in with setdefault); in one
  // global dict the two describe the same rotation and must agree.
  std::vector<candidate> all = own;
  if (!how.per_type || own.empty()) all.insert(all.end(), outer.begin(), outer.end());
  if (const auto c = agreed(cfg.file(), all)) return c->value;
  if (how.family.default_theta > 0) {
    notes.push_back(fmt::format("rope_theta: not in the config; {}, HF's default for model_type {}", number_text(how.family.default_theta),
                                how.family.model_type));
    return how.family.default_theta;
  }
  cfg.fail("rope_theta", fmt::format("missing, and model_type {} has no default pecheck takes: give it", how.family.model_type));
}

// head_dim x factor as a whole, even number of dims: input_error naming the key otherwise.
std::int64_t rotated_dims(const config_node& node, std::string_view key, double factor, std::int64_t head_dim) {
  if (!(factor > 0 && factor <= 1)) node.fail(key, fmt::format("{} must be in (0, 1]", number_text(factor)));
  const double dims = factor * static_cast<double>(head_dim);
  const double whole = std::round(dims);
  if (std::fabs(dims - whole) > 1e-9 * whole) {
    node.fail(key, fmt::format("{} x head_dim={} = {}: not a whole number of dims", number_text(factor), head_dim, number_text(dims)));
  }
  return static_cast<std::int64_t>(whole);
}

std::int64_t rotary_dim_of(const config_node& cfg, const rope_reading& how) {
  struct dims_from {
    std::string path;
    std::int64_t dims;
  };
  std::vector<dims_from> present;
  const auto factor_key = [&](const config_node& node, std::string_view key) {
    if (const auto f = node.real(key)) present.push_back({node.path_of(key), rotated_dims(node, key, *f, how.head_dim)});
  };
  if (how.params && !how.local_base_key) factor_key(*how.params, "partial_rotary_factor");
  factor_key(cfg, "partial_rotary_factor");
  factor_key(cfg, "rotary_pct");  // GPT-NeoX
  if (const auto d = cfg.integer("rotary_dim")) {  // GPT-J: the rotated dims themselves
    if (*d <= 0 || *d > how.head_dim) cfg.fail("rotary_dim", fmt::format("{} must be in 1..head_dim={}", *d, how.head_dim));
    present.push_back({cfg.path_of("rotary_dim"), *d});
  }
  for (const auto& p : present) {
    if (p.dims != present.front().dims) {
      throw input_error(fmt::format("{}: {} gives {} rotated dims and {} gives {}: they disagree", cfg.file(), present.front().path,
                                    present.front().dims, p.path, p.dims));
    }
  }
  if (present.empty()) return how.head_dim;
  if (present.front().dims % 2) {
    throw input_error(fmt::format("{}: {} gives {} rotated dims of head_dim={}: odd; rotation pairs need an even number", cfg.file(),
                                  present.front().path, present.front().dims, how.head_dim));
  }
  return present.front().dims;
}

double required_real(const config_node& p, std::string_view key, std::string_view type) {
  if (const auto v = p.real(key)) return *v;
  p.fail(key, fmt::format("missing: rope_type '{}' needs it", type));
}

// The pretraining context of yarn, llama3 and longrope: the dict's, else the top-level
// original_max_position_embeddings (Phi-3 keeps it there), else max_position_embeddings, as HF's
// standardize_rope_params fills it. The dict's and the top-level one must agree.
std::int64_t original_max_of(const config_node& cfg, const config_node& p, std::string_view type, std::vector<std::string>& notes) {
  const auto own = p.integer("original_max_position_embeddings");
  const auto outer = cfg.integer("original_max_position_embeddings");
  if (own && outer && *own != *outer) {
    throw input_error(fmt::format("{}: {}={} and {}={} disagree", cfg.file(), p.path_of("original_max_position_embeddings"), *own,
                                  cfg.path_of("original_max_position_embeddings"), *outer));
  }
  if (own) return *own;
  if (outer) return *outer;
  if (const auto m = max_positions_of(cfg)) {
    notes.push_back(fmt::format("original_max_position_embeddings: not in the config; max_position_embeddings={}, as HF's "
                                "standardize_rope_params fills it for rope_type '{}'",
                                *m, type));
    return *m;
  }
  p.fail("original_max_position_embeddings", fmt::format("missing, and no max_position_embeddings either: rope_type '{}' needs it", type));
}

std::int64_t required_max_positions(const config_node& cfg, std::string_view type) {
  if (const auto m = max_positions_of(cfg)) return *m;
  cfg.fail("max_position_embeddings", fmt::format("missing: rope_type '{}' reads it", type));
}

void read_yarn(const config_node& cfg, const config_node& p, rotary_scaling& s, std::vector<std::string>& notes) {
  s.type = kind::yarn;
  s.factor = required_real(p, "factor", "yarn");
  s.original_max = original_max_of(cfg, p, "yarn", notes);
  // HF reads `get("beta_fast") or 32`: a 0 is the default too.
  for (const auto& [key, to] : {std::pair{"beta_fast", &s.beta_fast}, std::pair{"beta_slow", &s.beta_slow}}) {
    const auto v = p.real(key);
    if (v && *v != 0) *to = *v;
  }
  s.attention_factor = p.real("attention_factor");
  s.mscale = p.real("mscale");
  s.mscale_all_dim = p.real("mscale_all_dim");
  s.truncate = p.flag("truncate");
}

void read_longrope(const config_node& cfg, const config_node& p, std::int64_t rotary_dim, rotary_scaling& s, std::vector<std::string>& notes) {
  s.type = kind::longrope;
  for (const auto& [key, to] : {std::pair{"short_factor", &s.short_factor}, std::pair{"long_factor", &s.long_factor}}) {
    const auto v = p.reals(key);
    if (!v) p.fail(key, "missing: rope_type 'longrope' needs it");
    if (static_cast<std::int64_t>(v->size()) != rotary_dim / 2) {
      p.fail(key, fmt::format("{} values; rotary_dim={} needs {}, one per pair", v->size(), rotary_dim, rotary_dim / 2));
    }
    *to = *v;
  }
  s.original_max = original_max_of(cfg, p, "longrope", notes);
  s.extended_max = required_max_positions(cfg, "longrope");
  s.factor = p.real("factor");
  s.attention_factor = p.real("attention_factor");
}

void read_dynamic(const config_node& cfg, const config_node& p, rotary_scaling& s) {
  s.type = kind::dynamic;
  s.factor = required_real(p, "factor", "dynamic");
  // HF's dynamic NTK scales from max_position_embeddings; a different original_max in the dict
  // would be read by nobody.
  s.original_max = required_max_positions(cfg, "dynamic");
  if (const auto own = p.integer("original_max_position_embeddings"); own && *own != *s.original_max) {
    throw input_error(fmt::format("{}: {}={} disagrees with {}={}, which HF's dynamic scaling reads", cfg.file(),
                                  p.path_of("original_max_position_embeddings"), *own, cfg.path_of("max_position_embeddings"), *s.original_max));
  }
}

// The rope_type of the dict: rope_type, or its v4 name type; "default" when neither is given.
std::pair<std::string, std::string_view> rope_type_of(const config_node& p) {
  const auto type = p.text("rope_type"), old = p.text("type");
  if (type && old && *type != *old) {
    throw input_error(fmt::format("{}: {}='{}' and {}='{}' disagree", p.file(), p.path_of("rope_type"), *type, p.path_of("type"), *old));
  }
  if (type) return {*type, "rope_type"};
  if (old) return {*old, "type"};
  return {"default", "rope_type"};
}

}  // namespace

std::int64_t head_dim_of(const config_node& cfg) {
  if (const auto d = cfg.integer("head_dim")) {
    if (*d <= 0) cfg.fail("head_dim", fmt::format("{} must be > 0", *d));
    return *d;
  }
  const auto hidden = cfg.required_integer_of({"hidden_size", "n_embd", "d_model"});
  const auto heads = cfg.required_integer_of({"num_attention_heads", "n_head", "n_heads"});
  if (hidden <= 0) cfg.fail("hidden_size", fmt::format("{} must be > 0", hidden));
  if (heads <= 0) cfg.fail("num_attention_heads", fmt::format("{} must be > 0", heads));
  if (hidden % heads) {
    throw input_error(fmt::format("{}: {}={} is not a multiple of {}={}, and no head_dim is given", cfg.file(), cfg.path_of("hidden_size"), hidden,
                                  cfg.path_of("num_attention_heads"), heads));
  }
  return hidden / heads;
}

std::optional<std::int64_t> max_positions_of(const config_node& cfg) { return cfg.integer_of({"max_position_embeddings", "n_positions", "max_seq_len"}); }

std::optional<config_node> rope_dict_of(const config_node& cfg) {
  const auto v5 = cfg.child("rope_parameters"), v4 = cfg.child("rope_scaling");
  if (v5 && v4 && v5->json() != v4->json()) {
    throw input_error(fmt::format("{}: {} and {} are both given and differ", cfg.file(), cfg.path_of("rope_parameters"), cfg.path_of("rope_scaling")));
  }
  return v5 ? v5 : v4;
}

rotary_positions read_rotary(const config_node& cfg, const rope_reading& how, std::vector<std::string>& notes) {
  rotary_positions r;
  r.head_dim = how.head_dim;
  r.pairs = how.family.pairs;
  r.base = theta_of(cfg, how, notes);
  r.rotary_dim = rotary_dim_of(cfg, how);
  if (how.local_base_key || !how.params) return r;
  const config_node& p = *how.params;
  auto [type, type_key] = rope_type_of(p);
  if (const auto sections = p.integers("mrope_section")) {
    r.mrope_sections = *sections;
    r.mrope_interleaved = p.flag("mrope_interleaved").value_or(false);
  }
  // "mrope" is Qwen2-VL's v4 name for default frequencies with mrope_section (HF maps it to "default").
  if (type == "mrope") {
    if (r.mrope_sections.empty()) p.fail("mrope_section", "missing: rope_type 'mrope' needs it");
    type = "default";
  }
  auto& s = r.scaling;
  if (type == "default") return r;
  if (type == "linear" || type == "ntk") {
    s.type = type == "linear" ? kind::linear : kind::ntk;
    s.factor = required_real(p, "factor", type);
  } else if (type == "dynamic") {
    read_dynamic(cfg, p, s);
  } else if (type == "yarn") {
    read_yarn(cfg, p, s, notes);
  } else if (type == "longrope" || type == "su") {  // "su": Phi-3's first name for longrope
    read_longrope(cfg, p, r.rotary_dim, s, notes);
  } else if (type == "llama3") {
    s.type = kind::llama3;
    s.factor = required_real(p, "factor", type);
    s.low_freq_factor = required_real(p, "low_freq_factor", type);
    s.high_freq_factor = required_real(p, "high_freq_factor", type);
    s.original_max = original_max_of(cfg, p, type, notes);
  } else {
    p.fail(type_key, fmt::format("'{}' is not a rope_type pecheck reads (default, linear, dynamic, ntk, yarn, longrope, su, llama3, mrope)", excerpt(type)));
  }
  return r;
}

}  // namespace pe::convert
