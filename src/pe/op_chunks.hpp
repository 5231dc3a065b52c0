// The ops whose output splits along the tokens, and running them on a range of tokens (eval streams those chunk by chunk).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "pe/ops.hpp"

namespace pe {

// Whether each row of op's one output reads only its own token's position row (and x), given
// the call's length (its descriptor says): a long call can then be run, printed and freed in
// chunks, each by run_op_tokens (ops.hpp).
bool splits_by_token(std::string_view op);

// The tokens of the call: its position rows.
std::int64_t token_count(const op_inputs& in);

// Tokens [first, first + count) of a call of encode or rotate: their position rows and their rows
// of x (where x holds data), with the role.
op_inputs token_range(const op_inputs& in, std::int64_t first, std::int64_t count);

}  // namespace pe
