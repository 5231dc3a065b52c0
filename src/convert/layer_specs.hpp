// A model's position handling as pecheck specs: one per distinct layer kind, with the comment naming its layers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "convert/model_positions.hpp"
#include "pe/spec.hpp"

namespace pe::convert {

struct layer_spec {
  std::string stack;                 // "" for a decoder-only model
  std::vector<std::int64_t> layers;  // indices within the stack, ascending
  // Which layers: "all 32 layers", "layers 0-4, 6-10 (sliding_attention, 5 of every 6)",
  // "encoder: all 6 layers (self-attention)".
  std::string comment;
  std::vector<std::string> notes;  // the kinds' notes (defaults taken, conventions)
  pe::spec spec;
  bool has_position = true;  // false where the layers see no position (NoPE): nothing to gate
};

// One entry per distinct spec in each stack, in the order of the stacks and then of each entry's
// first layer; kinds of one stack whose specs are equal are one entry. The specs are built through
// the registry (pe::parse_spec_json): a value the scheme refuses is an input_error naming the
// kind's source ("config.json: rope_scaling: llama3: ..."), like every reader error.
std::vector<layer_spec> layer_specs(const model_positions& model);

// What gate and audit --hf-config check: a line per entry ("<comment>: <spec>", or "<comment>: no
// positional encoding, nothing to check" for layers without one) and the specs to check, those of
// the layers with a position, each once.
struct specs_to_check {
  std::vector<std::string> lines;
  std::vector<std::string> specs;
};
specs_to_check checked_specs(const std::vector<layer_spec>& specs);

// The entries as text: per entry "# <comment>", "#   <note>" lines, then the canonical spec; a
// blank line between entries.
std::string specs_text(const std::vector<layer_spec>& specs);
// The entries as a JSON array of {"stack", "layers", "comment", "notes", "spec" (the JSON twin)}.
nlohmann::ordered_json specs_json(const std::vector<layer_spec>& specs);

}  // namespace pe::convert
