// The reference's ops by name, each run by its descriptor (op_schema.hpp) from the spec's scheme's hooks; the inputs they share.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pe/attention.hpp"
#include "pe/encode.hpp"
#include "pe/error.hpp"
#include "pe/scheme.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// An op's inputs: positions [T, pos_axes] row-major (encode, rotate, matrix) and x [T, H, D] (rotate).
struct op_inputs {
  std::vector<std::int64_t> pos;
  std::int64_t pos_axes = 1;
  tensor<double> x;
  tensor<double> k;                      // rotate_qk: the keys [T, Hk, D] (its queries q are held in x)
  tensor<double> cos, sin;               // apply_tables: each token's cos and sin per rotated pair [T, pairs]
  std::int64_t role = -1;                // rotate where the scheme rotates by role (xPos): 0 query, 1 key; -1 none
  std::vector<std::int64_t> rel;         // bucket: relative distances key - query
  std::vector<std::int64_t> qpos, kpos;  // bias: query and key positions
  attend_inputs attend;                  // attend: q, k, v (or x and projections), positions, mask
};

// An op's one output, moved into the list (a braced list would copy the tensor: its elements are const).
template <class T>
std::vector<named_tensor<T>> single_output(std::string name, tensor<T>&& value) {
  std::vector<named_tensor<T>> out;
  out.push_back({std::move(name), std::move(value)});
  return out;
}

// The role rotate was given: none (-1), query (0) or key (1).
inline std::optional<rotation_role> role_of(const op_inputs& in) {
  if (in.role == -1) return std::nullopt;
  if (in.role != 0 && in.role != 1) throw input_error(fmt::format("rotate: role is {}; give 0 (query) or 1 (key)", in.role));
  return in.role == 0 ? rotation_role::query : rotation_role::key;
}

// How the reference runs an op at scalar T (each op's descriptor holds one, op_schema.hpp): its
// outputs, by name. seq_len is the length the call's frequencies are made for (dynamic NTK and
// LongRoPE read it): the call's own, or the whole call's when a range of its tokens runs.
template <class T>
using op_run_signature = std::vector<named_tensor<T>>(const spec&, const op_inputs&, std::int64_t seq_len);

// Runs `op` of the reference and names its outputs: encode -> pe; inv_freq -> inv_freq and
// attention_factor; rotate -> y; matrix -> R; scale -> scale; bias -> bias; bucket -> bucket;
// attend -> out. Throws spec_error where the spec's scheme does not serve the op.
template <class T>
std::vector<named_tensor<T>> run_op(std::string_view op, const spec& s, const op_inputs& in);

// apply_tables' inputs for the call's positions: cos and sin [T, pairs] of the spec's angles at
// each token's position row (the call's own length for a scaling that reads it), each rounded
// once to binary64, in the rotation plan's pair order; no attention factor.
std::pair<tensor<double>, tensor<double>> angle_tables(const spec& s, const op_inputs& in);

// run_op on `part`, a range of a call's tokens, where the whole call's sequence length is seq_len
// (call_seq_len of its positions): the rows of run_op on the whole call.
template <class T>
std::vector<named_tensor<T>> run_op_tokens(std::string_view op, const spec& s, const op_inputs& part, std::int64_t seq_len);

}  // namespace pe
