// The shapes of an op's outputs that follow from its inputs and the spec, found without running the op.
#pragma once
#include <cstdint>
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

}  // namespace pe
