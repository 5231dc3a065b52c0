// Reading an op's inputs (attend's q, k, v or x and projections, positions, causal) from a JSON file.
#pragma once
#include <string>
#include <string_view>

#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pecheck {

// The file holds any of the op's inputs by the op table's names (pe/op_schema.hpp): reals as
// {"shape": [...], "data": [...]} with JSON numbers or strings holding decimal or C99 hex floats
// (read to the nearest binary64); positions as integers, or rows of integers for schemes with
// several position columns; integer scalars (heads) as integers; flags (causal) as true or false.
// attend: {"q": {"shape": [T, H, D], "data": [...]}, "k": ..., "v": ..., "qpos": [...],
// "kpos": [...], "causal": false}, or for absolute encodings {"x": ..., "wq": ..., "wk": ...,
// "wv": ..., "heads": H, "qpos": [...]}. Any tensor or position list may instead be
// {"npy": "FILE.npy"}, a NumPy file (golden/npy_reader.hpp) named relative to the --input file's
// directory: reals from <f8, <f4 or <f2, positions from <i8 or <i4 ([T], or [T, axes]).
// Errors name the file and the field.
pe::op_inputs read_input_file(const std::string& path, std::string_view op, const pe::spec& s);
// The same from the file's text; errors start with `label` (the fuzz target reads text). .npy
// references are resolved against `base`, and refused when it is empty.
pe::op_inputs read_input_text(std::string_view text, const std::string& label, std::string_view op, const pe::spec& s,
                              const std::string& base = {});

}  // namespace pecheck
