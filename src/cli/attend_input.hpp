// Reading attend's inputs (q, k, v or x and projections, positions, causal) from a JSON file.
#pragma once
#include <cstdint>
#include <string>

#include "pe/attention.hpp"

namespace pecheck {

// The file: {"q": {"shape": [T, H, D], "data": [...]}, "k": ..., "v": ..., "qpos": [...],
// "kpos": [...], "causal": false}, or for absolute encodings {"x": ..., "wq": ..., "wk": ...,
// "wv": ..., "heads": H, "qpos": [...]}. Data are JSON numbers or strings holding decimal or
// C99 hex floats (read to the nearest binary64); positions are integers, or rows of integers
// for schemes with several position columns. Errors name the file and the field.
pe::attend_inputs read_attend_input(const std::string& path, std::int64_t position_axes);

}  // namespace pecheck
