// Output shapes from the op table's symbols (see op_shapes.hpp).
#include "pe/op_shapes.hpp"

#include <charconv>
#include <map>
#include <string>

#include "pe/op_schema.hpp"
#include "pe/op_tensors.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

using bindings = shape_bindings;

// A dim's size: a number, or a bound symbol, or a bound product "H D".
std::optional<std::int64_t> size_of(std::string_view dim, const bindings& b) {
  std::int64_t n = 0;
  if (std::from_chars(dim.data(), dim.data() + dim.size(), n).ptr == dim.data() + dim.size()) return n;
  if (const auto it = b.find(dim); it != b.end()) return it->second;
  return std::nullopt;
}

// Binds the symbols of one input's rule from its shape: a plain symbol takes its size, and the
// second factor of "H D" takes size / H once H is bound.
void bind_dims(const tensor_schema& t, const std::vector<std::int64_t>& shape, bindings& b) {
  const std::size_t rank = t.shape.position_rows ? 1 : t.shape.dims.size();
  if (shape.size() < rank || (!t.shape.position_rows && shape.size() != rank)) return;
  for (std::size_t i = 0; i < rank; ++i) {
    const std::string_view dim = t.shape.dims[i];
    const auto space = dim.find(' ');
    if (space == std::string_view::npos) {
      if (!size_of(dim, b)) b.emplace(std::string(dim), shape[i]);
      continue;
    }
    const auto first = size_of(dim.substr(0, space), b);
    const std::string_view second = dim.substr(space + 1);
    if (first && *first > 0 && !size_of(second, b)) b.emplace(std::string(second), shape[i] / *first);
  }
}

}  // namespace

std::vector<std::optional<std::vector<std::int64_t>>> output_shapes(std::string_view op, const spec& s, const op_inputs& in) {
  bindings b;
  const auto inputs = inputs_of(op, s, false);
  // Twice: a product such as wq's "H D" resolves only once heads, later in the list, gave H.
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto* t : inputs) {
      if (!present(*t, in)) continue;
      if (!t->value_is.empty()) {
        if (const auto v = scalar_in(*t, in); v > 0 && !b.count(t->value_is)) b.emplace(std::string(t->value_is), v);
        continue;
      }
      bind_dims(*t, shape_in(*t, s, in), b);
    }
  }
  return output_shapes(op, s, std::move(b));
}

std::vector<std::optional<std::vector<std::int64_t>>> output_shapes(std::string_view op, const spec& s, shape_bindings b) {
  if (const auto heads = required_heads(s); heads && !b.count("H")) b.emplace("H", *heads);
  // The head dim: matrix's R is D x D with no input to give D.
  if (const auto d = head_dim(s); d && !b.count("D")) b.emplace("D", *d);
  std::vector<std::optional<std::vector<std::int64_t>>> out;
  for (const auto* t : outputs_of(op, s)) {
    std::vector<std::int64_t> shape;
    for (const auto dim : t->shape.dims) {
      const auto n = size_of(dim, b);
      if (!n) break;
      shape.push_back(*n);
    }
    out.push_back(shape.size() == t->shape.dims.size() ? std::optional(shape) : std::nullopt);
  }
  return out;
}

}  // namespace pe
