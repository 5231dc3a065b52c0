// A Hugging Face config.json as pecheck's description of the model's position handling (model_positions.hpp).
#pragma once
#include <string>
#include <string_view>

#include "convert/model_positions.hpp"

namespace pe::convert {

// Reads the text of a config.json. `file` names it in errors. A multimodal config's position
// settings are read from its text_config (Gemma 3, Qwen3-VL, Llama 4): the vision tower's own
// positions are not the language model's. The family comes from the top-level model_type; one
// pecheck does not know is an error (no convention is assumed). Every error is one input_error
// line "<file>: <key path>: <why>": invalid JSON, nesting past --limit depth, a missing or
// ill-typed key, an unknown rope_type, keys that disagree.
model_positions read_hf_config(std::string_view text, const std::string& file);

}  // namespace pe::convert
