// Running an eval op into a writer: chunk by chunk along the tokens where the op splits so, whole otherwise, each size checked first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pecheck {

// A call as eval runs it. When --x gives one D-vector for every token and head, x_row keeps it
// and in.x has only its shape [T, H, D]: it is expanded one chunk at a time, because in full it
// would take T*H*D*8 bytes (1 GiB for 1M positions of 128 values), unbounded memory for a stream.
struct eval_call {
  std::string op;
  pe::op_inputs in;
  std::vector<double> x_row;
};

// x [tokens, heads, D] with x_row in every token and head.
pe::tensor<double> broadcast_x(const std::vector<double>& x_row, std::int64_t tokens, std::int64_t heads);

// The most values one output may have in `format`: see eval_stream.cpp for the two caps and why.
std::size_t value_limit(const std::string& format, std::string_view op);

// Refuses, before any work, an output whose shape the inputs give (pe::output_shapes) with more
// than `limit` values: "eval: NAME would have N values; eval prints at most LIMIT".
void check_sizes(const eval_call& c, const pe::spec& s, std::size_t limit);

// Runs c on s at the scalar T (double, or pe::mp_real at the precision in scope) and writes each
// output to w; outputs whose shape only the op knows (encode's dim) are checked against `limit`
// after the first token. An op that splits by token (pe::splits_by_token) runs chunk_tokens
// tokens at a time (0: as many as keep a chunk near 16 MiB at precision_bits), each chunk
// written and freed before the next, with a progress line on a terminal; others run whole.
template <class T>
void stream_eval(const eval_call& c, const pe::spec& s, std::size_t limit, std::int64_t chunk_tokens, unsigned precision_bits,
                 result_writer& w);

}  // namespace pecheck
