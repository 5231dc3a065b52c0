// Which layer is which in a HF config: the layer count, layer_types and the families' own patterns (Gemma 3's sliding_window_pattern, Llama 4's no_rope_layers).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "convert/hf_json.hpp"

namespace pe::convert {

// num_hidden_layers (n_layer, n_layers, num_layers): required, at least 1, within --limit layers.
std::int64_t layer_count_of(const config_node& cfg, std::initializer_list<std::string_view> keys = {"num_hidden_layers", "n_layer", "n_layers", "num_layers"});

// Each layer's type name: layer_types when given (one string per layer), else, where
// `sliding_pattern_default` > 0 (Gemma 3), HF's sliding_window_pattern rule (layer i is
// "sliding_attention" unless (i + 1) is a multiple of the pattern); else "" for every layer.
// layer_types and sliding_window_pattern given together must agree. Notes gather defaults taken.
std::vector<std::string> layer_types_of(const config_node& cfg, std::int64_t layers, std::int64_t sliding_pattern_default,
                                        std::vector<std::string>& notes);

// Llama 4's no_rope_layers: true where the layer rotates. An empty or absent list is HF's
// default, a NoPE layer every no_rope_layer_interval (4) layers; a given list needs an entry
// (0 or 1) for every layer.
std::vector<bool> rope_layers_of(const config_node& cfg, std::int64_t layers, std::vector<std::string>& notes);

// The distinct values of `per_layer` in order of first appearance, each with its layers.
template <class T>
std::vector<std::pair<T, std::vector<std::int64_t>>> group_layers(const std::vector<T>& per_layer) {
  std::vector<std::pair<T, std::vector<std::int64_t>>> out;
  // Where each value's group is: a config may give every layer a type of its own.
  std::map<T, std::size_t> group_of;
  for (std::size_t i = 0; i < per_layer.size(); ++i) {
    const auto [at, added] = group_of.try_emplace(per_layer[i], out.size());
    if (added) out.push_back({per_layer[i], {}});
    out[at->second].second.push_back(static_cast<std::int64_t>(i));
  }
  return out;
}

}  // namespace pe::convert
