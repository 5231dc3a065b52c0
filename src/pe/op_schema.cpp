// The op table (see op_schema.hpp): golden/README.md's op table, as data every consumer loops over.
#include "pe/op_schema.hpp"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "pe/op_reference.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

using dims = std::vector<std::string_view>;
using k = element_kind;

tensor_schema input(std::string_view name, element_kind kind, dims shape, field_locator field) {
  return {.name = name, .kind = kind, .shape = {std::move(shape)}, .field = field};
}
// Positions [first] or [first, A]: one row per token.
tensor_schema position_rows(std::string_view name, std::string_view first, field_locator field) {
  return {.name = name, .kind = k::integer, .shape = {{first}, true}, .field = field};
}
tensor_schema for_schemes(scheme_filter f, tensor_schema t) {
  t.schemes = f;
  return t;
}
tensor_schema optional(tensor_schema t) {
  t.optional = true;
  return t;
}
tensor_schema value_is(std::string_view dim, tensor_schema t) {
  t.value_is = dim;
  return t;
}
tensor_schema table(tensor_schema t) {
  t.table = true;
  return t;
}
tensor_schema output(std::string_view name, element_kind kind, dims shape) {
  return {.name = name, .role = tensor_role::output, .kind = kind, .shape = {std::move(shape)}};
}
// The stored weights a bias looks up (T5's [buckets, heads]), in the I/O dtype at the gate.
tensor_schema bias_table() {
  return {.name = "table",
          .shape = {{"buckets", "H"}},
          .schemes = scheme_filter::bias_table,
          .constant = [](const spec& s) { return behaviour_of(s).bias_table(s); }};
}

// A scheme serves the op only with this hook of its descriptor.
template <class Hook>
hook_check needs(Hook scheme_behaviour::*hook, std::string_view op, std::string_view hook_name) {
  return [=](const scheme_behaviour& b) { return b.*hook ? std::string() : fmt::format("op '{}' needs {} hook", op, hook_name); };
}

// Token t's label: its position, or its position row joined by ','.
void append_token(std::string& out, const op_inputs& in, std::int64_t t) {
  const auto row = in.pos.begin() + t * in.pos_axes;
  fmt::format_to(std::back_inserter(out), "{}", fmt::join(row, row + in.pos_axes, ","));
}

// The rows of [T, H, ...] by token and head, each token labelled by `token`; H read from x [T, H, D]
// where heads_of_x, else from the output's own shape.
row_labels by_token_and_head(std::string_view title, void (*token)(std::string&, const op_inputs&, std::int64_t), bool heads_of_x) {
  return {title, [=](std::string& out, const op_inputs& in, const std::vector<std::int64_t>& shape, std::int64_t r) {
            const std::int64_t heads = heads_of_x ? in.x.shape.at(1) : shape.at(1);
            token(out, in, r / heads);
            fmt::format_to(std::back_inserter(out), "/{}", r % heads);
          }};
}

// The op_inputs field an input reads and writes.
#define PE_FIELD(member) [](op_inputs& in) -> input_field { return &in.member; }

std::vector<op_schema> build() {
  const auto abs = scheme_filter::absolute, qkv = scheme_filter::not_absolute;
  const auto plan = &scheme_behaviour::rotation_plan;
  namespace run = reference_runs;
  return {
      {.op = "encode",
       .tensors = {position_rows("pos", "T", PE_FIELD(pos)), output("pe", k::real, {"T", "dim"})},
       .splits_by_token = true,
       .needs = needs(&scheme_behaviour::encode, "encode", "an encode"),
       .run = run::encode(),
       .rows = {"pos", [](std::string& out, const op_inputs& in, const std::vector<std::int64_t>&, std::int64_t r) { append_token(out, in, r); }}},
      {.op = "inv_freq",
       .tensors = {output("inv_freq", k::real, {"pairs"}), output("attention_factor", k::real, {})},
       .spec_constant = true,
       .needs = needs(plan, "inv_freq", "a rotation_plan"),
       .run = run::inv_freq()},
      {.op = "rotate",
       .tensors = {input("x", k::real, {"T", "H", "D"}, PE_FIELD(x)), position_rows("pos", "T", PE_FIELD(pos)),
                   for_schemes(scheme_filter::role, input("role", k::integer, {}, PE_FIELD(role))), output("y", k::real, {"T", "H", "D"})},
       .agreements = {{"x", "pos", "token counts"}},
       .splits_by_token = true,
       .needs = needs(plan, "rotate", "a rotation_plan"),
       .run = run::rotate(),
       .rows = by_token_and_head("pos/head", append_token, true)},
      // rotate's backward pass: dy is held where rotate's x is (op_inputs::x), so that every
      // layer that reads the rotated rows (chunks, bounds, draws, probes) reads it alike.
      {.op = "rotate_grad",
       .tensors = {input("dy", k::real, {"T", "H", "D"}, PE_FIELD(x)), position_rows("pos", "T", PE_FIELD(pos)),
                   for_schemes(scheme_filter::role, input("role", k::integer, {}, PE_FIELD(role))), output("dx", k::real, {"T", "H", "D"})},
       .agreements = {{"dy", "pos", "token counts"}},
       .splits_by_token = true,
       .adjoint_of = "rotate",
       .needs = needs(plan, "rotate_grad", "a rotation_plan"),
       .run = run::rotate_grad(),
       .rows = by_token_and_head("pos/head", append_token, true)},
      // q and k in one call, as fused kernels take them (vLLM's rotary_embedding, ONNX's pair of
      // calls): grouped-query attention gives k fewer heads, Hq a multiple of Hk. q is held where
      // rotate's x is (op_inputs::x); xPos scales q as queries and k as keys, with no role input.
      {.op = "rotate_qk",
       .tensors = {input("q", k::real, {"T", "Hq", "D"}, PE_FIELD(x)), input("k", k::real, {"T", "Hk", "D"}, PE_FIELD(k)),
                   position_rows("pos", "T", PE_FIELD(pos)), output("q_out", k::real, {"T", "Hq", "D"}), output("k_out", k::real, {"T", "Hk", "D"})},
       .agreements = {{"q", "pos", "token counts"}, {"q", "k", "token counts"}},
       .splits_by_token = true,
       .needs = needs(plan, "rotate_qk", "a rotation_plan"),
       .run = run::rotate_qk(),
       .rows = by_token_and_head("pos/head", append_token, false)},
      // A kernel that only applies cos and sin tables it is handed (ONNX RotaryEmbedding without
      // position ids, flash-attention's varlen form): the spec gives the pairs, the tables the angles.
      {.op = "apply_tables",
       .tensors = {input("x", k::real, {"T", "H", "D"}, PE_FIELD(x)), table(input("cos", k::real, {"T", "pairs"}, PE_FIELD(cos))),
                   table(input("sin", k::real, {"T", "pairs"}, PE_FIELD(sin))), output("y", k::real, {"T", "H", "D"})},
       .agreements = {{"x", "cos", "token counts"}, {"x", "sin", "token counts"}},
       .needs = needs(plan, "apply_tables", "a rotation_plan"),
       .run = run::apply_tables(),
       .rows = {"token/head", [](std::string& out, const op_inputs& in, const std::vector<std::int64_t>&, std::int64_t r) {
                  fmt::format_to(std::back_inserter(out), "{}/{}", r / in.x.shape.at(1), r % in.x.shape.at(1));
                }}},
      {.op = "matrix",
       .tensors = {position_rows("pos", "1", PE_FIELD(pos)), output("R", k::real, {"D", "D"})},
       .reference_only = true,
       .needs = needs(plan, "matrix", "a rotation_plan"),
       .run = run::matrix(),
       .rows = {"row", nullptr}},
      {.op = "scale",
       .tensors = {position_rows("pos", "T", PE_FIELD(pos)), output("scale", k::real, {"T"})},
       .needs = needs(&scheme_behaviour::scale, "scale", "a scale"),
       .run = run::scale()},
      {.op = "bucket",
       .tensors = {input("rel", k::integer, {"N"}, PE_FIELD(rel)), output("bucket", k::integer, {"N"})},
       .needs = needs(&scheme_behaviour::bucket, "bucket", "a bucket"),
       .run = run::bucket()},
      {.op = "bias",
       .tensors = {input("qpos", k::integer, {"T"}, PE_FIELD(qpos)), input("kpos", k::integer, {"S"}, PE_FIELD(kpos)), bias_table(),
                   output("bias", k::real, {"H", "T", "S"})},
       .needs = needs(&scheme_behaviour::bias, "bias", "a bias"),
       .run = run::bias(),
       .rows = {"head/q",
                [](std::string& out, const op_inputs& in, const std::vector<std::int64_t>&, std::int64_t r) {
                  const auto queries = static_cast<std::int64_t>(in.qpos.size());
                  fmt::format_to(std::back_inserter(out), "{}/{}", r / queries, in.qpos[static_cast<std::size_t>(r % queries)]);
                }}},
      // Any scheme attends, each by its kind's hook (checked when it registers).
      {.op = "attend",
       .tensors = {for_schemes(qkv, input("q", k::real, {"T", "H", "D"}, PE_FIELD(attend.q))),
                   for_schemes(qkv, input("k", k::real, {"S", "H", "D"}, PE_FIELD(attend.k))),
                   for_schemes(qkv, input("v", k::real, {"S", "H", "Dv"}, PE_FIELD(attend.v))),
                   for_schemes(abs, input("x", k::real, {"T", "d_model"}, PE_FIELD(attend.x))),
                   for_schemes(abs, input("wq", k::real, {"d_model", "H D"}, PE_FIELD(attend.wq))),
                   for_schemes(abs, input("wk", k::real, {"d_model", "H D"}, PE_FIELD(attend.wk))),
                   for_schemes(abs, input("wv", k::real, {"d_model", "H Dv"}, PE_FIELD(attend.wv))),
                   for_schemes(abs, value_is("H", input("heads", k::integer, {}, PE_FIELD(attend.heads)))),
                   optional(position_rows("qpos", "T", PE_FIELD(attend.qpos))), optional(position_rows("kpos", "S", PE_FIELD(attend.kpos))),
                   input("causal", k::flag, {}, PE_FIELD(attend.causal)), bias_table(), output("out", k::real, {"T", "H", "Dv"})},
       .run = run::attend(),
       .rows = by_token_and_head("query/head", [](std::string& out, const op_inputs&, std::int64_t t) { fmt::format_to(std::back_inserter(out), "{}", t); }, false)},
  };
}

#undef PE_FIELD

std::vector<const tensor_schema*> select(std::string_view op, const auto& keep) {
  std::vector<const tensor_schema*> out;
  if (const op_schema* o = find_op_schema(op))
    for (const auto& t : o->tensors)
      if (keep(t)) out.push_back(&t);
  return out;
}

}  // namespace

const std::vector<op_schema>& op_schemas() {
  static const std::vector<op_schema> table = build();
  return table;
}

const op_schema* find_op_schema(std::string_view op) {
  for (const auto& o : op_schemas())
    if (o.op == op) return &o;
  return nullptr;
}

std::vector<std::string> op_names() {
  std::vector<std::string> out;
  for (const auto& o : op_schemas()) out.emplace_back(o.op);
  return out;
}

element_kind output_kind(std::string_view op, const spec& s, std::string_view name) {
  for (const auto* t : outputs_of(op, s))
    if (t->name == name) return t->kind;
  return element_kind::real;
}

bool is_spec_constant(std::string_view op) {
  const op_schema* o = find_op_schema(op);
  return o && o->spec_constant;
}

bool applies(const tensor_schema& t, const spec& s) {
  switch (t.schemes) {
    case scheme_filter::all: return true;
    case scheme_filter::absolute: return is_absolute(s);
    case scheme_filter::not_absolute: return !is_absolute(s);
    case scheme_filter::bias_table: return static_cast<bool>(behaviour_of(s).bias_table);
    case scheme_filter::role: return rotates_by_role(s);
  }
  return false;
}

std::vector<const tensor_schema*> inputs_of(std::string_view op, const spec& s, bool with_constants) {
  return select(op, [&](const tensor_schema& t) {
    return t.role == tensor_role::input && (with_constants || !t.constant) && applies(t, s);
  });
}

bool takes_input(std::string_view op, const spec& s, std::string_view name) {
  const auto inputs = inputs_of(op, s, false);
  return std::any_of(inputs.begin(), inputs.end(), [&](const tensor_schema* t) { return t->name == name; });
}

bool takes_x_rows(std::string_view op, const spec& s) {
  op_inputs probe;
  const auto inputs = inputs_of(op, s, false);
  return std::any_of(inputs.begin(), inputs.end(), [&](const tensor_schema* t) {
    if (!t->field) return false;
    const input_field field = t->field(probe);
    const auto* real = std::get_if<tensor<double>*>(&field);
    return real && *real == &probe.x;
  });
}

std::vector<const tensor_schema*> outputs_of(std::string_view op, const spec& s) {
  return select(op, [&](const tensor_schema& t) { return t.role == tensor_role::output && applies(t, s); });
}

std::string shape_text(const shape_rule& r) {
  const std::string plain = fmt::format("[{}]", fmt::join(r.dims, ", "));
  if (!r.position_rows) return plain;
  return fmt::format("{} or [{}, A]", plain, fmt::join(r.dims, ", "));
}

}  // namespace pe
