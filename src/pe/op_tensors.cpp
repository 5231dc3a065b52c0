// Named tensors of an op and op_inputs, each way, generically over the op table (see op_tensors.hpp).
#include "pe/op_tensors.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;  // clang 14 does not deduce aggregates' arguments (C++20's P1816)

// The locator takes op_inputs& because readers store through it; the writers here only read.
input_field field_of(const tensor_schema& t, const op_inputs& in) { return t.field(const_cast<op_inputs&>(in)); }

std::vector<std::int64_t> integers(const op_tensor& t) { return std::get<std::vector<std::int64_t>>(t.values); }

// Position rows are [n] or [n, A] with the spec's A; every other input has its rule's rank.
bool rank_fits(const tensor_schema& t, const std::vector<std::int64_t>& shape, std::int64_t axes) {
  if (!t.shape.position_rows) return shape.size() == t.shape.dims.size();
  return axes == 1 ? shape.size() == 1 : shape.size() == 2 && shape[1] == axes;
}

const op_tensor* find(const std::vector<op_tensor>& tensors, std::string_view name) {
  const auto it = std::find_if(tensors.begin(), tensors.end(), [&](const op_tensor& t) { return t.name == name; });
  return it == tensors.end() ? nullptr : &*it;
}

// Rotate's x and pos give the same token count, and so on: the op's own agreements.
void check_agreements(std::string_view op, const std::vector<op_tensor>& tensors) {
  const op_schema* schema = find_op_schema(op);
  for (const auto& [a, b, what] : schema->agreements) {
    const op_tensor *ta = find(tensors, a), *tb = find(tensors, b);
    if (ta && tb && !ta->shape.empty() && !tb->shape.empty() && ta->shape[0] != tb->shape[0]) {
      throw input_error(fmt::format("{} and {} have different {}", a, b, what));
    }
  }
}

}  // namespace

const char* storage_name(const op_tensor& t) { return t.values.index() == 0 ? "f64" : "i64"; }

bool present(const tensor_schema& t, const op_inputs& in) {
  if (!t.optional) return true;
  return std::visit(overloaded{[](const std::vector<std::int64_t>* v) { return !v->empty(); },
                               [](const tensor<double>* v) { return !v->data.empty(); }, [](const auto*) { return true; }},
                    field_of(t, in));
}

std::vector<std::int64_t> shape_in(const tensor_schema& t, const spec& s, const op_inputs& in) {
  return std::visit(overloaded{[](const tensor<double>* v) { return v->shape; },
                               [&](const std::vector<std::int64_t>* v) {
                                 const auto n = static_cast<std::int64_t>(v->size());
                                 const std::int64_t axes = t.shape.position_rows ? position_axes(s) : 1;
                                 return axes == 1 ? std::vector<std::int64_t>{n / axes} : std::vector<std::int64_t>{n / axes, axes};
                               },
                               [](const auto*) { return std::vector<std::int64_t>{}; }},
                    field_of(t, in));
}

std::int64_t scalar_in(const tensor_schema& t, const op_inputs& in) {
  return std::visit(overloaded{[](const std::int64_t* v) { return *v; }, [](const bool* v) { return std::int64_t{*v ? 1 : 0}; },
                               [](const auto*) -> std::int64_t { throw std::logic_error("not a scalar input"); }},
                    field_of(t, in));
}

std::vector<op_tensor> named_inputs(std::string_view op, const spec& s, const op_inputs& in, bool with_constants) {
  std::vector<op_tensor> out;
  for (const auto* t : inputs_of(op, s, with_constants)) {
    if (t->constant) {
      auto value = t->constant(s);
      out.push_back({std::string(t->name), std::move(value.shape), std::move(value.data)});
      continue;
    }
    if (!present(*t, in)) continue;
    auto values = std::visit(overloaded{[](const tensor<double>* v) -> decltype(op_tensor::values) { return v->data; },
                                        [](const std::vector<std::int64_t>* v) -> decltype(op_tensor::values) { return *v; },
                                        [&](const auto*) -> decltype(op_tensor::values) { return std::vector<std::int64_t>{scalar_in(*t, in)}; }},
                             field_of(*t, in));
    out.push_back({std::string(t->name), shape_in(*t, s, in), std::move(values)});
  }
  return out;
}

op_inputs inputs_from(std::string_view op, const spec& s, const std::vector<op_tensor>& tensors, bool with_constants) {
  const auto wanted = inputs_of(op, s, with_constants);
  for (const auto& t : tensors) {
    if (std::none_of(wanted.begin(), wanted.end(), [&](const tensor_schema* w) { return w->name == t.name; })) {
      throw input_error(fmt::format("input {} is not read by op {}", t.name, op));
    }
  }
  op_inputs in;
  in.pos_axes = position_axes(s);
  for (const auto* w : wanted) {
    const op_tensor* t = find(tensors, w->name);
    if (!t && w->optional) continue;
    if (!t) throw input_error(fmt::format("op {} needs input {}", op, w->name));
    const char* storage = w->kind == element_kind::real ? "f64" : "i64";
    if (std::string_view(storage_name(*t)) != storage) throw input_error(fmt::format("input {} is {}, not {}", w->name, storage_name(*t), storage));
    if (!rank_fits(*w, t->shape, in.pos_axes)) {
      throw input_error(fmt::format("input {} has shape [{}], which op {} of {} does not read", w->name, fmt::join(t->shape, ", "), op, s.scheme()));
    }
    if (w->kind == element_kind::flag) {
      const auto v = integers(*t).at(0);
      if (v != 0 && v != 1) throw input_error(fmt::format("input {} is {}, not 0 or 1", w->name, v));
    }
    if (w->field) store_input(*w, *t, in);
  }
  if (find_op_schema(op)) check_agreements(op, tensors);
  return in;
}

void store_input(const tensor_schema& t, op_tensor value, op_inputs& in) {
  std::visit(overloaded{[&](tensor<double>* v) {
                          v->shape = std::move(value.shape);
                          v->data = std::get<std::vector<double>>(std::move(value.values));
                        },
                        [&](std::vector<std::int64_t>* v) { *v = integers(value); },
                        [&](std::int64_t* v) { *v = integers(value).at(0); },
                        [&](bool* v) { *v = integers(value).at(0) != 0; }},
             t.field(in));
}

}  // namespace pe
