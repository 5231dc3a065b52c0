// Shared pieces of the law bodies (see law_support.hpp).
#include "properties/law_support.hpp"

namespace pe::props {

std::int64_t rope_head_dim(const spec& s) { return rotation_plan_of(s, std::nullopt).dim; }

std::int64_t rope_rotated_dims(const spec& s) { return 2 * static_cast<std::int64_t>(rotation_plan_of(s, std::nullopt).pairs.size()); }

op_inputs rotate_inputs(std::vector<double> x, std::int64_t tokens, std::int64_t heads, std::int64_t dim,
                        std::vector<std::int64_t> pos, std::int64_t axes) {
  op_inputs in;
  in.x = tensor<double>({tokens, heads, dim});
  in.x.data = std::move(x);
  in.pos = std::move(pos);
  in.pos_axes = axes;
  return in;
}

std::int64_t rotation_position_limit(std::int64_t backend_max, const spec& s) {
  const std::int64_t top = std::min(backend_max, std::int64_t{1} << 40);
  const auto plan = rotation_plan_of(s, std::nullopt);
  return plan.magnitude ? std::min(top, plan.magnitude->positions_within(450)) : top;
}

std::vector<std::pair<std::int64_t, std::int64_t>> rotation_groups(const spec& s) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  const auto plan = rotation_plan_of(s, std::nullopt);
  std::vector<bool> rotated(static_cast<size_t>(plan.dim), false);
  for (const auto& pr : plan.pairs) {
    out.push_back({pr.a, pr.b});
    rotated[static_cast<size_t>(pr.a)] = rotated[static_cast<size_t>(pr.b)] = true;
  }
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(rotated.size()); ++d)
    if (!rotated[static_cast<size_t>(d)]) out.push_back({d, -1});
  return out;
}

op_inputs position_inputs(std::vector<std::int64_t> pos, std::int64_t axes) {
  op_inputs in;
  in.pos = std::move(pos);
  in.pos_axes = axes;
  return in;
}

op_inputs attend_op_inputs(attend_inputs a) {
  op_inputs in;
  in.attend = std::move(a);
  return in;
}

namespace {

// A tensor of drawn values, named for the counterexample ("q", "wk").
tensor<double> drawn(const char* name, std::vector<std::int64_t> shape) {
  tensor<double> t(std::move(shape));
  t.data = *gen_vector(static_cast<std::int64_t>(t.data.size())).as(name);
  return t;
}

// Rows of a [rows, ...] tensor reordered.
tensor<double> reorder_rows(const tensor<double>& t, const std::vector<std::int64_t>& order) {
  if (t.shape.empty()) return t;
  tensor<double> out = t;
  const auto width = static_cast<std::int64_t>(t.data.size()) / t.shape[0];
  for (size_t r = 0; r < order.size(); ++r)
    std::copy_n(t.data.begin() + order[r] * width, width, out.data.begin() + static_cast<std::int64_t>(r) * width);
  return out;
}

void copy_row(tensor<double>& t, std::int64_t from, std::int64_t to) {
  if (t.shape.empty()) return;
  const auto width = static_cast<std::int64_t>(t.data.size()) / t.shape[0];
  std::copy_n(t.data.begin() + from * width, width, t.data.begin() + to * width);
}

}  // namespace

attend_inputs draw_attend(const spec& s, std::int64_t tokens, bool causal) {
  attend_inputs in;
  in.causal = causal;
  const std::int64_t axes = position_axes(s);
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t a = 0; a < axes; ++a) in.qpos.push_back(t);
  if (is_absolute(s)) {
    const std::int64_t width = s.integer("dim");
    in.heads = *rc::gen::inRange<std::int64_t>(1, 3).as("heads");
    const std::int64_t d = *rc::gen::inRange<std::int64_t>(1, 5).as("d");
    in.x = drawn("x", {tokens, width});
    in.wq = drawn("wq", {width, in.heads * d});
    in.wk = drawn("wk", {width, in.heads * d});
    in.wv = drawn("wv", {width, in.heads * d});
    return in;
  }
  in.kpos = in.qpos;
  std::int64_t heads = *rc::gen::inRange<std::int64_t>(1, 3).as("heads"), d = *rc::gen::inRange<std::int64_t>(1, 9).as("d");
  // The shapes the spec fixes: a rotary scheme's head dim, a table's heads and head dim.
  if (const auto fixed = required_heads(s)) heads = *fixed;
  if (const auto fixed = head_dim(s)) d = *fixed;
  const std::int64_t dv = behaviour_of(s).value_dim_is_head_dim ? d : *rc::gen::inRange<std::int64_t>(1, 5).as("dv");
  in.q = drawn("q", {tokens, heads, d});
  in.k = drawn("k", {tokens, heads, d});
  in.v = drawn("v", {tokens, heads, dv});
  return in;
}

attend_inputs reorder_tokens(const attend_inputs& in, const std::vector<std::int64_t>& order) {
  attend_inputs out = in;
  out.x = reorder_rows(in.x, order);
  out.q = reorder_rows(in.q, order);
  out.k = reorder_rows(in.k, order);
  out.v = reorder_rows(in.v, order);
  return out;
}

void copy_token(attend_inputs& in, std::int64_t from, std::int64_t to) {
  copy_row(in.x, from, to);
  copy_row(in.q, from, to);
  copy_row(in.k, from, to);
  copy_row(in.v, from, to);
}

}  // namespace pe::props
