// The ops of the reference by name (encode, inv_freq, rotate, matrix), with project-wide output names.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "pe/encode.hpp"
#include "pe/error.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// An op's inputs: positions (encode, rotate, matrix) and x [T, H, D] (rotate).
struct op_inputs {
  std::vector<std::int64_t> pos;
  tensor<double> x;
};

template <class T>
std::vector<named_tensor<T>> rope_op(std::string_view op, const spec& s, const op_inputs& in);

// Runs `op` of the reference and names its outputs: encode -> pe; inv_freq -> inv_freq and
// attention_factor; rotate -> y; matrix -> R.
template <class T>
std::vector<named_tensor<T>> run_op(std::string_view op, const spec& s, const op_inputs& in) {
  const auto& ops = s.info().ops;
  if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
    throw spec_error(fmt::format("{}: op '{}' is not supported (ops: {})", s.scheme(), op, fmt::join(ops, ", ")));
  }
  if (op == "encode") return {{"pe", encode<T>(s, in.pos)}};
  if (s.scheme() == "rope") return rope_op<T>(op, s, in);
  throw spec_error(fmt::format("{}: op '{}' is not implemented", s.scheme(), op));
}

template <class T>
std::vector<named_tensor<T>> rope_op(std::string_view op, const spec& s, const op_inputs& in) {
  if (op == "inv_freq") return rope_inv_freq<T>(s);
  if (op == "rotate") return {{"y", rope_rotate<T>(s, in.x, in.pos)}};
  if (in.pos.size() != 1) throw input_error(fmt::format("rope: op 'matrix' takes one position, not {}", in.pos.size()));
  return {{"R", rope_matrix<T>(s, in.pos[0])}};
}

extern template std::vector<named_tensor<double>> rope_op<double>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<float>> rope_op<float>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<bf16>> rope_op<bf16>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<fp16>> rope_op<fp16>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<mp_real>> rope_op<mp_real>(std::string_view, const spec&, const op_inputs&);

}  // namespace pe
