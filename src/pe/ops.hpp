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
#include "pe/schemes/rope_nd.hpp"
#include "pe/schemes/alibi.hpp"
#include "pe/schemes/t5.hpp"
#include "pe/attention.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// An op's inputs: positions [T, pos_axes] row-major (encode, rotate, matrix) and x [T, H, D] (rotate).
struct op_inputs {
  std::vector<std::int64_t> pos;
  std::int64_t pos_axes = 1;
  tensor<double> x;
  std::vector<std::int64_t> rel;         // bucket: relative distances key - query
  std::vector<std::int64_t> qpos, kpos;  // bias: query and key positions
  attend_inputs attend;                  // attend: q, k, v (or x and projections), positions, mask
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
  if (op == "attend") {
    // attend computes in MPFR: it is instantiated for binary64, binary32 and MPFR outputs.
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, mp_real>) {
      return {{"out", attend<T>(s, in.attend)}};
    } else {
      throw spec_error(fmt::format("op 'attend' stores f64, f32 or MPFR outputs, not {}", scalar_name<T>()));
    }
  }
  if (!in.pos.empty() && in.pos_axes != position_axes(s)) {
    throw input_error(fmt::format("{}: positions have {} columns; this scheme reads {}", s.scheme(), in.pos_axes,
                                  position_axes(s)));
  }
  if (s.scheme() == "rope" || s.scheme() == "rope_nd" || s.scheme() == "mrope") return rope_op<T>(op, s, in);
  if (s.scheme() == "alibi") return {{"bias", alibi_bias<T>(s, in.qpos, in.kpos)}};
  if (s.scheme() == "t5" && op == "bias") return {{"bias", t5_bias<T>(s, in.qpos, in.kpos)}};
  if (s.scheme() == "deberta") {
    tensor<T> b({static_cast<std::int64_t>(in.rel.size())});
    for (size_t k = 0; k < in.rel.size(); ++k) {
      b.data[k] = store_integer<T>(deberta_bucket(in.rel[k], s.integer("buckets"), s.integer("max_position")));
    }
    return {{"bucket", std::move(b)}};
  }
  if (s.scheme() == "t5") {
    tensor<T> b({static_cast<std::int64_t>(in.rel.size())});
    for (size_t k = 0; k < in.rel.size(); ++k) {
      b.data[k] = store_integer<T>(t5_bucket(in.rel[k], s.integer("buckets"), s.integer("max_distance"), s.boolean("bidirectional")));
    }
    return {{"bucket", std::move(b)}};
  }
  throw spec_error(fmt::format("{}: op '{}' is not implemented", s.scheme(), op));
}

template <class T, class Plan>
std::vector<named_tensor<T>> axial_op(std::string_view op, const Plan& plan, const op_inputs& in) {
  if (op == "inv_freq") return axial_inv_freq<T>(plan);
  if (op == "rotate") return {{"y", axial_rotate<T>(plan, in.x, in.pos)}};
  return {{"R", rotation_matrix<T>(plan, in.pos)}};
}

template <class T>
std::vector<named_tensor<T>> rope_op(std::string_view op, const spec& s, const op_inputs& in) {
  if (op == "matrix" && static_cast<std::int64_t>(in.pos.size()) != in.pos_axes) {
    throw input_error(fmt::format("{}: op 'matrix' takes one position, not {}", s.scheme(), in.pos.size() / in.pos_axes));
  }
  if (s.scheme() == "rope_nd") return axial_op<T>(op, rope_nd_plan(s), in);
  if (s.scheme() == "mrope") return axial_op<T>(op, mrope_plan(s), in);
  if (op == "inv_freq") return rope_inv_freq<T>(s);
  if (op == "rotate") return {{"y", rope_rotate<T>(s, in.x, in.pos)}};
  return {{"R", rope_matrix<T>(s, in.pos[0])}};
}

extern template std::vector<named_tensor<double>> rope_op<double>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<float>> rope_op<float>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<bf16>> rope_op<bf16>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<fp16>> rope_op<fp16>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<mp_real>> rope_op<mp_real>(std::string_view, const spec&, const op_inputs&);

}  // namespace pe
