// An op's inputs as named tensors and back, written once over the op table for golden files, the gate and the CLI.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pe/op_schema.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe {

// One named tensor as every consumer exchanges it: binary64 reals or int64 integers, row-major.
struct op_tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::variant<std::vector<double>, std::vector<std::int64_t>> values;
};

// The storage of a tensor ("f64" or "i64", golden files' dtype names).
const char* storage_name(const op_tensor& t);

// An input of the call in `in`: whether it is there (an optional one may be absent) and its
// shape ([n] or [n, A] for position rows, [] for a scalar).
bool present(const tensor_schema& t, const op_inputs& in);
std::vector<std::int64_t> shape_in(const tensor_schema& t, const spec& s, const op_inputs& in);
// A scalar input's value (heads, causal as 0 or 1).
std::int64_t scalar_in(const tensor_schema& t, const op_inputs& in);

// op_inputs -> named tensors: the op's inputs on s in the table's order, absent optional ones
// left out; with_constants adds the spec's own (T5's table), as the gate hands them over.
std::vector<op_tensor> named_inputs(std::string_view op, const spec& s, const op_inputs& in, bool with_constants);

// named tensors -> op_inputs. input_error naming the op and the tensor for a tensor the op does
// not read, one it needs that is missing, or one of the wrong storage, rank or value; the spec's
// constants are read only with_constants, and checked but not kept (the reference has its own).
op_inputs inputs_from(std::string_view op, const spec& s, const std::vector<op_tensor>& tensors, bool with_constants);

// One call input stored into its field (readers that take fields one at a time, such as the CLI's).
void store_input(const tensor_schema& t, op_tensor value, op_inputs& in);

}  // namespace pe
