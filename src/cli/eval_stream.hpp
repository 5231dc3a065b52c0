// Running an eval op into a writer: chunk by chunk along the tokens where the op splits so, whole otherwise, each size checked first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cli/output.hpp"
#include "pe/limits.hpp"
#include "pe/op_shapes.hpp"
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

// Whether every output of op is integer-kind (bucket): eval computes those at 64-bit MPFR, where
// every int64 is exact, and prints them as integers whatever --precision says (binary64 would
// round 2^53 + 1 to 2^53).
bool integer_outputs_only(std::string_view op, const pe::spec& s);

// The limit on one output's values in `format`: streamed_values where the format streams and the
// op splits by token, values (held whole) otherwise (pe/limits.cpp says why each).
pe::limit value_limit(const std::string& format, std::string_view op);

// Refuses, before any work, an output whose shape the sizes give (pe::output_shapes) with more
// values than `limit` allows: "eval: output NAME's values: N, over the limit ...". The bindings
// form runs before any input is read (sizes counted from the options' text).
void check_sizes(const eval_call& c, const pe::spec& s, pe::limit limit);
void check_sizes(std::string_view op, const pe::spec& s, const pe::shape_bindings& sizes, pe::limit limit);

// Runs c on s at the scalar T (double, or pe::mp_real at the precision in scope) and writes each
// output to w; outputs whose shape only the op knows (encode's dim) are checked against `limit`
// after the first token. An op that splits by token (pe::splits_by_token) runs chunk_tokens
// tokens at a time (0: as many as keep a chunk near 16 MiB at precision_bits), each chunk
// written and freed before the next, with a progress line on a terminal; others run whole.
template <class T>
void stream_eval(const eval_call& c, const pe::spec& s, pe::limit limit, std::int64_t chunk_tokens, unsigned precision_bits,
                 result_writer& w);

}  // namespace pecheck
