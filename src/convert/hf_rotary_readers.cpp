// RoPE families: one rotation per layer type (Gemma 3's local and global layers), Llama 4's RoPE and NoPE layers, DeepSeek-V3's rope part.
#include <unordered_set>

#include <fmt/format.h>

#include "convert/hf_layers.hpp"
#include "convert/hf_readers.hpp"
#include "convert/hf_rope.hpp"
#include "pe/error.hpp"

namespace pe::convert {
namespace {

// Whether a rope dict holds one entry per layer type (HF v5, Gemma 3): its keys are all layer
// type names (HF's rule: set(rope_parameters) is a subset of set(layer_types)).
bool per_layer_type(const std::optional<config_node>& dict, const std::vector<std::string>& types) {
  if (!dict || !dict->json().is_object() || dict->json().empty()) return false;
  const std::unordered_set<std::string> names(types.begin(), types.end());
  for (const auto& [key, value] : dict->json().items()) {
    if (key.empty() || !names.contains(key)) return false;
  }
  return true;
}

std::string source_of(const config_node& cfg, const std::optional<config_node>& params) {
  return fmt::format("{}: {}", cfg.file(), params ? params->path_of("") : cfg.path_of(""));
}

layer_kind rotary_kind(const config_node& cfg, const rope_reading& how, std::string name, std::vector<std::int64_t> layers,
                       std::vector<std::string> notes) {
  const rotary_positions r = read_rotary(cfg, how, notes);
  notes.emplace_back(how.family.layout);
  return layer_kind{"", std::move(name), std::move(layers), r, source_of(cfg, how.local_base_key ? std::nullopt : how.params), std::move(notes)};
}

model_positions one_stack(const hf_family& family, std::int64_t layers, std::vector<layer_kind> kinds) {
  return model_positions{std::string(family.model_type), {layer_stack{"", layers}}, std::move(kinds)};
}

}  // namespace

model_positions read_rotary_family(const config_node& cfg, const hf_family& family) {
  const std::int64_t layers = layer_count_of(cfg);
  const bool gemma3 = family.model_type.starts_with("gemma3");
  std::vector<std::string> pattern_notes;
  // Gemma 3 alternates local and global layers every sliding_window_pattern (HF default 6).
  const auto types = layer_types_of(cfg, layers, gemma3 ? 6 : 0, pattern_notes);
  const auto dict = rope_dict_of(cfg);
  const bool per_type = per_layer_type(dict, types);
  const std::int64_t head_dim = head_dim_of(cfg);
  std::vector<layer_kind> kinds;
  for (auto& [type, members] : group_layers(types)) {
    rope_reading how{family, head_dim};
    if (per_type) {
      how.params = dict->child(type);
      if (!how.params) dict->fail(type, fmt::format("missing: layer_types names '{}' and rope_parameters has an entry per layer type", type));
      how.per_type = true;
    } else if (gemma3 && type == "sliding_attention") {
      // HF's Gemma 3 (v4): local layers rotate with rope_local_base_freq and no scaling.
      how.local_base_key = "rope_local_base_freq";
    } else {
      how.params = dict;
    }
    auto kind = rotary_kind(cfg, how, type, members, pattern_notes);
    if (gemma3 && per_type && type == "sliding_attention") {
      if (const auto local = cfg.real("rope_local_base_freq"); local && *local != std::get<rotary_positions>(kind.encoding).base) {
        throw input_error(fmt::format("{}: {}={} and {}.rope_theta={} disagree", cfg.file(), cfg.path_of("rope_local_base_freq"), number_text(*local),
                                      how.params->path_of(""), number_text(std::get<rotary_positions>(kind.encoding).base)));
      }
    }
    kinds.push_back(std::move(kind));
  }
  return one_stack(family, layers, std::move(kinds));
}

model_positions read_llama4(const config_node& cfg, const hf_family& family) {
  const std::int64_t layers = layer_count_of(cfg);
  std::vector<std::string> pattern_notes;
  const auto rope = rope_layers_of(cfg, layers, pattern_notes);
  std::vector<layer_kind> kinds;
  for (auto& [rotates, members] : group_layers(rope)) {
    if (rotates) {
      rope_reading how{family, head_dim_of(cfg)};
      how.params = rope_dict_of(cfg);
      kinds.push_back(rotary_kind(cfg, how, "rope", members, pattern_notes));
      continue;
    }
    // NoPE layers: HF's Llama4TextAttention scales their queries when attn_temperature_tuning
    // is on (True in v5; the first published configs wrote 4, which 4.51 reads as true).
    std::vector<std::string> notes = pattern_notes;
    bool tuning = true;
    if (const auto* t = cfg.find("attn_temperature_tuning")) {
      if (t->is_boolean()) tuning = t->get<bool>();
      else if (const auto n = cfg.integer("attn_temperature_tuning")) {
        tuning = *n != 0;
        notes.push_back(fmt::format("attn_temperature_tuning={}: a number, read as {} the way transformers 4.51 reads it (nonzero is on)", *n,
                                    tuning ? "true" : "false"));
      }
    } else {
      notes.push_back("attn_temperature_tuning: not in the config; true, HF's default");
    }
    position_encoding enc = no_position{};
    if (tuning) {
      query_temperature q;
      const auto floor_scale = cfg.integer("floor_scale");
      const auto attn_scale = cfg.real("attn_scale");
      if (!floor_scale) notes.push_back("floor_scale: not in the config; 8192, HF's default");
      if (!attn_scale) notes.push_back("attn_scale: not in the config; 0.1, HF's default");
      q.floor_scale = floor_scale.value_or(8192);
      q.attn_scale = attn_scale.value_or(0.1);
      enc = q;
    }
    kinds.push_back(layer_kind{"", "nope", members, enc, fmt::format("{}: {}", cfg.file(), cfg.path_of("")), std::move(notes)});
  }
  return one_stack(family, layers, std::move(kinds));
}

model_positions read_deepseek(const config_node& cfg, const hf_family& family) {
  const std::int64_t layers = layer_count_of(cfg);
  const auto rope_dims = cfg.integer("qk_rope_head_dim");
  if (!rope_dims) cfg.fail("qk_rope_head_dim", "missing: DeepSeek's RoPE rotates that part of each head");
  if (*rope_dims <= 0) cfg.fail("qk_rope_head_dim", fmt::format("{} must be > 0", *rope_dims));
  // HF's DeepseekV3Config sets head_dim = qk_rope_head_dim for the rotary embedding.
  if (const auto hd = cfg.integer("head_dim"); hd && *hd != *rope_dims) {
    throw input_error(fmt::format("{}: {}={} and {}={} disagree (HF's DeepSeek-V3 rotates head_dim = qk_rope_head_dim dims)", cfg.file(),
                                  cfg.path_of("head_dim"), *hd, cfg.path_of("qk_rope_head_dim"), *rope_dims));
  }
  hf_family f = family;
  const bool interleave = cfg.flag("rope_interleave").value_or(true);
  if (!interleave) {
    f.pairs = rotary_pairs::rotate_half;
    f.layout = "layout=neox: rope_interleave=false, HF's modeling_deepseek_v3 rotates the rope part with rotate_half";
  }
  rope_reading how{f, *rope_dims};
  how.params = rope_dict_of(cfg);
  std::vector<std::string> notes{fmt::format("dim={}: qk_rope_head_dim, the rope part of each head (HF rotates q_pe and the shared k_pe only); "
                                             "the qk_nope_head_dim part sees no position",
                                             *rope_dims)};
  std::vector<std::int64_t> all;
  for (std::int64_t i = 0; i < layers; ++i) all.push_back(i);
  return one_stack(family, layers, {rotary_kind(cfg, how, "", all, notes)});
}

}  // namespace pe::convert
