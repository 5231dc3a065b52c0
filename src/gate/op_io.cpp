// An op's inputs and outputs as io tensors (see op_io.hpp).
#include "gate/op_io.hpp"

#include "pe/attention.hpp"

namespace pe::gate {
namespace {

std::vector<std::int64_t> rows_shape(const std::vector<std::int64_t>& pos, std::int64_t axes) {
  const auto n = static_cast<std::int64_t>(pos.size()) / axes;
  return axes == 1 ? std::vector<std::int64_t>{n} : std::vector<std::int64_t>{n, axes};
}

std::vector<std::int64_t> length_of(const std::vector<std::int64_t>& v) { return {static_cast<std::int64_t>(v.size())}; }

}  // namespace

tensor<double> rounded(const tensor<double>& t, dtype d) { return as_doubles(real_tensor("", d, t)); }

std::vector<io_tensor> io_inputs(std::string_view op, const spec& s, const op_inputs& in, dtype d) {
  if (op == "rotate") return {real_tensor("x", d, in.x), integer_tensor("pos", rows_shape(in.pos, in.pos_axes), in.pos)};
  if (op == "encode") return {integer_tensor("pos", rows_shape(in.pos, in.pos_axes), in.pos)};
  if (op == "bias") {
    std::vector<io_tensor> out = {integer_tensor("qpos", length_of(in.qpos), in.qpos), integer_tensor("kpos", length_of(in.kpos), in.kpos)};
    if (const auto& table = behaviour_of(s).bias_table) out.push_back(real_tensor("table", d, table(s)));
    return out;
  }
  if (op == "bucket") return {integer_tensor("rel", length_of(in.rel), in.rel)};
  if (op == "attend") {
    const auto& a = in.attend;
    std::vector<io_tensor> out;
    if (is_absolute(s)) {
      out = {real_tensor("x", d, a.x), real_tensor("wq", d, a.wq), real_tensor("wk", d, a.wk), real_tensor("wv", d, a.wv),
             integer_tensor("heads", {}, {a.heads})};
    } else {
      out = {real_tensor("q", d, a.q), real_tensor("k", d, a.k), real_tensor("v", d, a.v)};
    }
    const std::int64_t axes = position_axes(s);
    if (!a.qpos.empty()) out.push_back(integer_tensor("qpos", rows_shape(a.qpos, axes), a.qpos));
    if (!a.kpos.empty()) out.push_back(integer_tensor("kpos", rows_shape(a.kpos, axes), a.kpos));
    out.push_back(integer_tensor("causal", {}, {a.causal ? 1 : 0}));
    if (const auto& table = behaviour_of(s).bias_table) out.push_back(real_tensor("table", d, table(s)));
    return out;
  }
  return {};
}

const std::vector<std::string>& gate_ops() {
  static const std::vector<std::string> ops = {"encode", "inv_freq", "rotate", "bias", "bucket", "attend"};
  return ops;
}

std::vector<io_tensor> output_templates(std::string_view op, const spec& s, const op_inputs& in, dtype d) {
  // The shapes the gate calls most, without evaluating the reference (its rotation runs in MPFR).
  if (op == "rotate") return {empty_tensor("y", d, in.x.shape)};
  const auto n_q = static_cast<std::int64_t>(in.qpos.size()), n_k = static_cast<std::int64_t>(in.kpos.size());
  if (op == "bias" && required_heads(s)) return {empty_tensor("bias", d, {*required_heads(s), n_q, n_k})};
  if (op == "attend" && is_absolute(s) && in.attend.heads > 0) {  // out [T, H, Dv]
    const auto& a = in.attend;
    return {empty_tensor("out", d, {a.x.shape.at(0), a.heads, a.wv.shape.at(1) / a.heads})};
  }
  if (op == "attend" && !is_absolute(s)) return {empty_tensor("out", d, {in.attend.q.shape.at(0), in.attend.q.shape.at(1), in.attend.v.shape.at(2)})};
  std::vector<io_tensor> out;
  for (const auto& e : run_op<double>(op, s, in)) out.push_back(empty_tensor(e.name, op == "bucket" ? dtype::i64 : d, e.value.shape));
  return out;
}

}  // namespace pe::gate
