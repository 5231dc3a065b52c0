// The model families whose config.json pecheck reads, each with its position convention and where in HF's code that convention comes from.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "convert/model_positions.hpp"

namespace pe::convert {

// How a family's config turns into layer kinds (hf_config.cpp dispatches on it).
enum class hf_reader {
  rotary,    // RoPE on every attention layer (layer_types, Gemma 3's sliding pattern, per-type rope_parameters)
  llama4,    // RoPE layers and NoPE layers with a query temperature (no_rope_layers)
  deepseek,  // RoPE on the qk_rope_head_dim part of each head (MLA)
  falcon,    // RoPE, or ALiBi when "alibi": true
  bloom,     // ALiBi always
  mpt,       // ALiBi (attn_config.alibi)
  t5,        // bucketed relative bias; encoder and decoder stacks
  deberta,   // disentangled relative attention (DeBERTa-v2/v3)
};

struct hf_family {
  std::string_view model_type;  // config.json's "model_type"
  hf_reader reader;
  rotary_pairs pairs;       // RoPE families: the pairing HF's code rotates
  double default_theta;     // HF's config class default when rope_theta is absent (RoPE families)
  std::string_view layout;  // why `pairs`, from the HF model file: printed as a note
};

// The family of a model_type; nullptr for one pecheck does not know (no convention is assumed).
const hf_family* find_family(std::string_view model_type);
// Every model_type known, for the error message that lists them.
std::vector<std::string_view> known_model_types();

}  // namespace pe::convert
