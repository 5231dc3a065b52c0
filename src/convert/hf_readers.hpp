// The per-family readers of hf_config.cpp: each turns a family's (text) config into its layer kinds.
#pragma once
#include "convert/hf_families.hpp"
#include "convert/hf_json.hpp"
#include "convert/model_positions.hpp"

namespace pe::convert {

// RoPE families (hf_rotary_readers.cpp).
model_positions read_rotary_family(const config_node& cfg, const hf_family& family);
model_positions read_llama4(const config_node& cfg, const hf_family& family);
model_positions read_deepseek(const config_node& cfg, const hf_family& family);

// Bias and relative families (hf_bias_readers.cpp). `why` is the family's ALiBi note.
model_positions read_alibi(const config_node& cfg, const hf_family& family, std::string why);
model_positions read_mpt(const config_node& cfg, const hf_family& family);
model_positions read_t5(const config_node& cfg, const hf_family& family);
model_positions read_deberta(const config_node& cfg, const hf_family& family);

}  // namespace pe::convert
