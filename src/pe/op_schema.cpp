// The op table (see op_schema.hpp): golden/README.md's op table, as data every consumer loops over.
#include "pe/op_schema.hpp"

#include <algorithm>

#include <fmt/format.h>

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

// The op_inputs field an input reads and writes.
#define PE_FIELD(member) [](op_inputs& in) -> input_field { return &in.member; }

std::vector<op_schema> build() {
  const auto abs = scheme_filter::absolute, qkv = scheme_filter::not_absolute;
  return {
      {"encode", {position_rows("pos", "T", PE_FIELD(pos)), output("pe", k::real, {"T", "dim"})}},
      {"inv_freq", {output("inv_freq", k::real, {"pairs"}), output("attention_factor", k::real, {})}},
      {"rotate",
       {input("x", k::real, {"T", "H", "D"}, PE_FIELD(x)), position_rows("pos", "T", PE_FIELD(pos)),
        for_schemes(scheme_filter::role, input("role", k::integer, {}, PE_FIELD(role))), output("y", k::real, {"T", "H", "D"})},
       {{"x", "pos", "token counts"}}},
      {"matrix", {position_rows("pos", "1", PE_FIELD(pos)), output("R", k::real, {"D", "D"})}, {}, true},
      {"scale", {position_rows("pos", "T", PE_FIELD(pos)), output("scale", k::real, {"T"})}},
      {"bucket", {input("rel", k::integer, {"N"}, PE_FIELD(rel)), output("bucket", k::integer, {"N"})}},
      {"bias",
       {input("qpos", k::integer, {"T"}, PE_FIELD(qpos)), input("kpos", k::integer, {"S"}, PE_FIELD(kpos)), bias_table(),
        output("bias", k::real, {"H", "T", "S"})}},
      {"attend",
       {for_schemes(qkv, input("q", k::real, {"T", "H", "D"}, PE_FIELD(attend.q))),
        for_schemes(qkv, input("k", k::real, {"S", "H", "D"}, PE_FIELD(attend.k))),
        for_schemes(qkv, input("v", k::real, {"S", "H", "Dv"}, PE_FIELD(attend.v))),
        for_schemes(abs, input("x", k::real, {"T", "d_model"}, PE_FIELD(attend.x))),
        for_schemes(abs, input("wq", k::real, {"d_model", "H D"}, PE_FIELD(attend.wq))),
        for_schemes(abs, input("wk", k::real, {"d_model", "H D"}, PE_FIELD(attend.wk))),
        for_schemes(abs, input("wv", k::real, {"d_model", "H Dv"}, PE_FIELD(attend.wv))),
        for_schemes(abs, value_is("H", input("heads", k::integer, {}, PE_FIELD(attend.heads)))),
        optional(position_rows("qpos", "T", PE_FIELD(attend.qpos))), optional(position_rows("kpos", "S", PE_FIELD(attend.kpos))),
        input("causal", k::flag, {}, PE_FIELD(attend.causal)), bias_table(), output("out", k::real, {"T", "H", "Dv"})}},
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

std::vector<const tensor_schema*> outputs_of(std::string_view op, const spec& s) {
  return select(op, [&](const tensor_schema& t) { return t.role == tensor_role::output && applies(t, s); });
}

std::string shape_text(const shape_rule& r) {
  const std::string plain = fmt::format("[{}]", fmt::join(r.dims, ", "));
  if (!r.position_rows) return plain;
  return fmt::format("{} or [{}, A]", plain, fmt::join(r.dims, ", "));
}

}  // namespace pe
