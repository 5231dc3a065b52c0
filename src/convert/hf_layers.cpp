// Layer counts and per-layer types of HF configs.
#include "convert/hf_layers.hpp"

#include <fmt/format.h>

#include "pe/bounded_json.hpp"
#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe::convert {

std::int64_t layer_count_of(const config_node& cfg, std::initializer_list<std::string_view> keys) {
  const auto n = cfg.required_integer_of(keys);
  if (n < 1) cfg.fail(*keys.begin(), fmt::format("{} must be >= 1", n));
  // Each layer gets an entry in memory and in the comments.
  check_limit(limit::layers, static_cast<std::uint64_t>(n), fmt::format("{}: {}", cfg.file(), cfg.path_of(*keys.begin())));
  return n;
}

std::vector<std::string> layer_types_of(const config_node& cfg, std::int64_t layers, std::int64_t sliding_pattern_default,
                                        std::vector<std::string>& notes) {
  std::vector<std::string> types;
  if (const auto* given = cfg.find("layer_types")) {
    if (!given->is_array()) cfg.fail("layer_types", fmt::format("expected a list of strings, got {}", json_excerpt(*given)));
    if (static_cast<std::int64_t>(given->size()) != layers) {
      cfg.fail("layer_types", fmt::format("{} entries for {} layers", given->size(), layers));
    }
    for (const auto& t : *given) {
      if (!t.is_string()) cfg.fail("layer_types", fmt::format("entry {} is {}, not a string", types.size(), json_excerpt(t)));
      types.push_back(t.get<std::string>());
    }
  }
  if (sliding_pattern_default <= 0) {
    if (types.empty()) types.assign(static_cast<std::size_t>(layers), "");
    return types;
  }
  const auto pattern = cfg.integer("sliding_window_pattern");
  if (pattern && *pattern < 1) cfg.fail("sliding_window_pattern", fmt::format("{} must be >= 1", *pattern));
  if (!pattern && !types.empty()) return types;
  const std::int64_t every = pattern.value_or(sliding_pattern_default);
  if (!pattern) {
    notes.push_back(fmt::format("sliding_window_pattern: not in the config; {}, HF's default (every {}th layer global)", every, every));
  }
  std::vector<std::string> derived;
  for (std::int64_t i = 0; i < layers; ++i) derived.push_back((i + 1) % every ? "sliding_attention" : "full_attention");
  if (!types.empty() && types != derived) {
    throw input_error(fmt::format("{}: {} and {}={} disagree on which layers slide", cfg.file(), cfg.path_of("layer_types"),
                                  cfg.path_of("sliding_window_pattern"), every));
  }
  return derived;
}

std::vector<bool> rope_layers_of(const config_node& cfg, std::int64_t layers, std::vector<std::string>& notes) {
  std::vector<bool> rope;
  const auto given = cfg.integers("no_rope_layers");
  if (given && !given->empty()) {
    // HF: "at least the same length as the number of layers"; the model reads the first ones.
    if (static_cast<std::int64_t>(given->size()) < layers) cfg.fail("no_rope_layers", fmt::format("{} entries for {} layers", given->size(), layers));
    for (std::int64_t i = 0; i < layers; ++i) {
      const auto v = (*given)[static_cast<std::size_t>(i)];
      if (v != 0 && v != 1) cfg.fail("no_rope_layers", fmt::format("entry {} is {}: 1 (RoPE) or 0 (NoPE)", i, v));
      rope.push_back(v == 1);
    }
    return rope;
  }
  const auto interval = cfg.integer("no_rope_layer_interval");
  if (interval && *interval < 1) cfg.fail("no_rope_layer_interval", fmt::format("{} must be >= 1", *interval));
  const std::int64_t every = interval.value_or(4);
  notes.push_back(interval ? fmt::format("no_rope_layers: not given; a NoPE layer every no_rope_layer_interval={} layers, as HF fills it", every)
                           : "no_rope_layers: not given; a NoPE layer every 4 layers, HF's default no_rope_layer_interval");
  for (std::int64_t i = 0; i < layers; ++i) rope.push_back((i + 1) % every != 0);
  return rope;
}

}  // namespace pe::convert
