// The shapes of an op's outputs that follow from its inputs and the spec, found without running the op.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe {

// One entry per output of op on s (the op table's order): its shape where every symbol of its
// rule is bound by the call's input shapes (heads by its value) or by the descriptor (H: the
// heads the spec fixes), nullopt where only the op knows it (encode's dim, inv_freq's pairs).
std::vector<std::optional<std::vector<std::int64_t>>> output_shapes(std::string_view op, const spec& s, const op_inputs& in);

// The same from sizes alone, before any input is read: symbol -> size ("T" -> the position rows
// counted in --positions's text, "H" -> --heads). The spec binds what it fixes (H, and D, the head dim).
using shape_bindings = std::map<std::string, std::int64_t, std::less<>>;
std::vector<std::optional<std::vector<std::int64_t>>> output_shapes(std::string_view op, const spec& s, shape_bindings b);

}  // namespace pe
