// RoPE settings of a HF config: theta, the rotated part, multimodal sections and the rope_type's scaling, with every disagreement refused.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/hf_families.hpp"
#include "convert/hf_json.hpp"
#include "convert/model_positions.hpp"

namespace pe::convert {

// The head dim the rotation sees: head_dim, else hidden_size / num_attention_heads (HF's rule,
// with GPT-J's and MPT's names for the two), which must divide.
std::int64_t head_dim_of(const config_node& cfg);

// max_position_embeddings (n_positions, max_seq_len), when given.
std::optional<std::int64_t> max_positions_of(const config_node& cfg);

// The rope dict of the config: rope_parameters (v5) or rope_scaling (v4); both present must be
// the same object.
std::optional<config_node> rope_dict_of(const config_node& cfg);

struct rope_reading {
  const hf_family& family;
  std::int64_t head_dim = 0;
  // The dict that applies to this layer kind: the whole rope dict, one layer type's entry of a
  // per-type rope_parameters, or none.
  std::optional<config_node> params;
  // params is one layer type's entry: the top-level rope_theta only fills in a missing theta
  // (HF's standardize_rope_params), it does not contradict it.
  bool per_type = false;
  // Gemma 3's local layers in the v4 form: base from this key (rope_local_base_freq, HF default
  // 10000), no scaling; params is ignored.
  std::optional<std::string_view> local_base_key;
};

// The layer kind's rotation. Notes gather defaults taken. Errors (input_error) name the key:
// an unknown rope_type, a scaling without its factor, a rotated part that is not a whole even
// number of dims, two keys that disagree.
rotary_positions read_rotary(const config_node& cfg, const rope_reading& how, std::vector<std::string>& notes);

}  // namespace pe::convert
