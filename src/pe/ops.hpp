// The ops of the reference by name (encode, inv_freq, rotate, matrix, scale, bias, bucket, attend), served by each scheme's hooks.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string_view>
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

// A rotary scheme's ops on its plan for this call: inv_freq -> inv_freq and attention_factor;
// rotate -> y; matrix -> R (one position row).
template <class T>
std::vector<named_tensor<T>> rotary_op(std::string_view op, const spec& s, const op_inputs& in) {
  if (op == "inv_freq") return plan_inv_freq<T>(rotation_plan_of(s, std::nullopt));
  if (op == "rotate") return single_output<T>("y", rotate_pairs<T>(rotation_plan_of(s, call_seq_len(in.pos)), in.x, in.pos, role_of(in)));
  if (static_cast<std::int64_t>(in.pos.size()) != in.pos_axes) {
    throw input_error(fmt::format("{}: op 'matrix' takes one position, not {}", s.scheme(), in.pos.size() / in.pos_axes));
  }
  return single_output<T>("R", rotation_matrix<T>(rotation_plan_of(s, call_seq_len(in.pos)), in.pos));
}

// Runs `op` of the reference and names its outputs: encode -> pe; inv_freq -> inv_freq and
// attention_factor; rotate -> y; matrix -> R; scale -> scale; bias -> bias; bucket -> bucket;
// attend -> out.
template <class T>
std::vector<named_tensor<T>> run_op(std::string_view op, const spec& s, const op_inputs& in) {
  const auto& ops = s.info().ops;
  if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
    throw spec_error(fmt::format("{}: op '{}' is not supported (ops: {})", s.scheme(), op, fmt::join(ops, ", ")));
  }
  const auto& b = behaviour_of(s);
  if (op == "encode") return single_output<T>("pe", encode<T>(s, in.pos));
  if (op == "attend") {
    // attend computes in MPFR: it is instantiated for binary64, binary32 and MPFR outputs.
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, mp_real>) {
      return single_output<T>("out", attend<T>(s, in.attend));
    } else {
      throw spec_error(fmt::format("op 'attend' stores f64, f32 or MPFR outputs, not {}", scalar_name<T>()));
    }
  }
  if (op == "bias") return single_output<T>("bias", b.bias.template at<T>()(s, in.qpos, in.kpos));
  if (op == "scale") return single_output<T>("scale", b.scale.template at<T>()(s, in.pos));
  if (op == "bucket") {
    tensor<T> out({static_cast<std::int64_t>(in.rel.size())});
    for (size_t k = 0; k < in.rel.size(); ++k) out.data[k] = store_integer<T>(b.bucket(s, in.rel[k]));
    return single_output<T>("bucket", std::move(out));
  }
  // The rotary ops (registration guarantees the plan hook for each).
  if (!in.pos.empty() && in.pos_axes != position_axes(s)) {
    throw input_error(fmt::format("{}: positions have {} columns; this scheme reads {}", s.scheme(), in.pos_axes,
                                  position_axes(s)));
  }
  return rotary_op<T>(op, s, in);
}

extern template std::vector<named_tensor<double>> run_op<double>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<float>> run_op<float>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<bf16>> run_op<bf16>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<fp16>> run_op<fp16>(std::string_view, const spec&, const op_inputs&);
extern template std::vector<named_tensor<mp_real>> run_op<mp_real>(std::string_view, const spec&, const op_inputs&);

}  // namespace pe
