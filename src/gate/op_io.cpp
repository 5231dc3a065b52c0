// An op's inputs and outputs as io tensors (see op_io.hpp).
#include "gate/op_io.hpp"

#include <algorithm>

#include "pe/op_schema.hpp"
#include "pe/op_shapes.hpp"
#include "pe/op_tensors.hpp"

namespace pe::gate {

namespace {

// Named inputs of op as an implementation receives them: reals rounded once to their dtype
// (input_dtype), integers as int64.
std::vector<io_tensor> io_tensors(std::string_view op, const std::vector<op_tensor>& tensors, dtype d, dtype tables) {
  std::vector<io_tensor> out;
  for (const auto& t : tensors) {
    if (const auto* reals = std::get_if<std::vector<double>>(&t.values)) {
      tensor<double> values;
      values.shape = t.shape, values.data = *reals;
      out.push_back(real_tensor(t.name, input_dtype(op, t.name, d, tables), values));
    } else {
      out.push_back(integer_tensor(t.name, t.shape, std::get<std::vector<std::int64_t>>(t.values)));
    }
  }
  return out;
}

}  // namespace

tensor<double> rounded(const tensor<double>& t, dtype d) { return as_doubles(real_tensor("", d, t)); }

std::vector<io_tensor> io_inputs(std::string_view op, const spec& s, const op_inputs& in, dtype d, dtype tables) {
  return io_tensors(op, named_inputs(op, s, in, true), d, tables);
}

op_inputs rounded_inputs(std::string_view op, const spec& s, op_inputs in, dtype d, dtype tables) {
  for (const tensor_schema* t : inputs_of(op, s, false)) {
    if (t->kind != element_kind::real) continue;
    const input_field field = t->field(in);
    if (auto* const* real = std::get_if<tensor<double>*>(&field)) {
      if (!(*real)->data.empty()) **real = rounded(**real, t->table ? tables : d);
    }
  }
  return in;
}

dtype input_dtype(std::string_view op, std::string_view name, dtype d, dtype tables) {
  if (const op_schema* schema = find_op_schema(op))
    for (const auto& t : schema->tensors)
      if (t.name == name && t.role == tensor_role::input && t.table) return tables;
  return d;
}

op_inputs op_inputs_of(std::string_view op, const spec& s, const std::vector<io_tensor>& inputs) {
  std::vector<op_tensor> named;
  for (const auto& t : inputs) {
    if (is_real(t.type)) {
      named.push_back({t.name, t.shape, as_doubles(t).data});
      continue;
    }
    std::vector<std::int64_t> values;
    for (std::int64_t e = 0; e < t.elements(); ++e) values.push_back(static_cast<std::int64_t>(t.at(e)));
    named.push_back({t.name, t.shape, std::move(values)});
  }
  return inputs_from(op, s, named, true);
}

const std::vector<std::string>& gate_ops() {
  static const std::vector<std::string> ops = [] {
    std::vector<std::string> out;
    for (const auto& o : op_schemas())
      if (!o.reference_only) out.emplace_back(o.op);
    return out;
  }();
  return ops;
}

std::vector<io_tensor> output_templates(std::string_view op, const spec& s, const op_inputs& in, dtype d) {
  // Integer outputs (buckets) are int64; real ones in the I/O dtype.
  const auto outputs = outputs_of(op, s);
  const auto type_of = [&](std::string_view name) {
    for (const auto* t : outputs)
      if (t->name == name && t->kind != element_kind::real) return dtype::i64;
    return d;
  };
  // The shapes the inputs give, without evaluating the reference (its rotation runs in MPFR);
  // the others (encode's dim, inv_freq's pairs) from the binary64 reference.
  const auto shapes = output_shapes(op, s, in);
  std::vector<io_tensor> out;
  if (!shapes.empty() && std::all_of(shapes.begin(), shapes.end(), [](const auto& shape) { return shape.has_value(); })) {
    for (std::size_t o = 0; o < outputs.size(); ++o) out.push_back(empty_tensor(std::string(outputs[o]->name), type_of(outputs[o]->name), *shapes[o]));
    return out;
  }
  for (const auto& e : run_op<double>(op, s, in)) out.push_back(empty_tensor(e.name, type_of(e.name), e.value.shape));
  return out;
}

}  // namespace pe::gate
