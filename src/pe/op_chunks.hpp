// The ops whose output splits along the tokens, and running them on a range of tokens (eval streams those chunk by chunk).
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "pe/ops.hpp"

namespace pe {

// Whether each row of op's one output reads only its own token's position row (and x), given
// the call's length: encode and rotate. A long call can then be run, printed and freed in chunks.
bool splits_by_token(std::string_view op);

// The tokens of the call: its position rows.
std::int64_t token_count(const op_inputs& in);

// Tokens [first, first + count) of a call of encode or rotate: their position rows and their rows
// of x (where x holds data), with the role.
op_inputs token_range(const op_inputs& in, std::int64_t first, std::int64_t count);

// run_op on `part`, a token_range of a call whose sequence length is seq_len (call_seq_len of
// its positions): the rows of run_op on the whole call. Rotate's frequencies read the call's
// length (dynamic NTK, LongRoPE), which the part's own positions would not give.
template <class T>
std::vector<named_tensor<T>> run_op_tokens(std::string_view op, const spec& s, const op_inputs& part, std::int64_t seq_len);

}  // namespace pe
