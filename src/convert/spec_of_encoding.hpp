// One layer kind's position encoding as the JSON twin of a pecheck spec (the only place the converter writes scheme names).
#pragma once
#include <nlohmann/json.hpp>

#include "convert/model_positions.hpp"

namespace pe::convert {

// {"scheme": ..., parameters}: the spec that computes what the encoding describes. Throws
// input_error "<source>: why" for an encoding no scheme expresses (multimodal RoPE with a
// scaling or a partial rotation). The registry validates the rest when the twin is parsed.
nlohmann::ordered_json spec_json_of(const position_encoding& encoding, const std::string& source);

}  // namespace pe::convert
