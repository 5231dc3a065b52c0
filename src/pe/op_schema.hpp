// One description of each op: its inputs and outputs, their element kinds and their shapes in terms of the spec and the call.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pe/ops.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

enum class tensor_role { input, output };

// What an element is. Reals are binary64 in golden files and the I/O dtype at the gate;
// integers (positions, distances, counts, buckets) and flags are int64 everywhere; a flag is 0 or 1.
enum class element_kind { real, integer, flag };

// Which schemes a tensor belongs to: absolute encodings take x and the projections where every
// other scheme takes q, k, v; `table` exists where the descriptor stores a bias table (T5);
// `role` where the rotation scales queries and keys apart (xPos).
enum class scheme_filter { all, absolute, not_absolute, bias_table, role };

// A shape in symbols the op's tensors share (T queries, S keys, H heads, D and Dv head dims,
// N distances): "H D" is a product, a number is that size. Position rows gain a column per
// position axis where the scheme reads more than one: [T] or [T, A], A = position_axes(spec).
// Readers check ranks; sizes are the op's to check (matrix's one position, attend's heads).
struct shape_rule {
  std::vector<std::string_view> dims;
  bool position_rows = false;
};

// Where a call input lives in op_inputs, so that reading and writing are written once.
using input_field = std::variant<tensor<double>*, std::vector<std::int64_t>*, std::int64_t*, bool*>;
using field_locator = input_field (*)(op_inputs&);
// An input the spec determines (T5's table): handed to implementations, never stored in golden files.
using spec_constant = tensor<double> (*)(const spec&);

struct tensor_schema {
  std::string_view name;
  tensor_role role = tensor_role::input;
  element_kind kind = element_kind::real;
  shape_rule shape;
  scheme_filter schemes = scheme_filter::all;
  bool optional = false;            // an input that may be absent (attend's positions: 0 .. n-1)
  // A table of the spec's values an implementation is handed (apply_tables' cos and sin): at the
  // gate in the run's table dtype (--table-dtype), which is the I/O dtype unless asked otherwise.
  bool table = false;
  std::string_view value_is;        // a scalar input whose value is this dim (heads: H)
  field_locator field = nullptr;    // an input of the call
  spec_constant constant = nullptr; // an input of the spec
};

// Two inputs whose first dims must agree (rotate's x and pos: "different token counts").
struct dim_agreement {
  std::string_view a, b, what;
};

// Why a scheme's hooks cannot serve an op ("" when they can).
using hook_check = std::function<std::string(const scheme_behaviour&)>;

// How `pecheck eval` labels the rows of an op's output: the label column's title ("" for one
// unlabelled row) and row r's label, from the call and the output's shape (none: the row's index).
struct row_labels {
  std::string_view title;
  std::function<void(std::string& out, const op_inputs& in, const std::vector<std::int64_t>& shape, std::int64_t r)> append;
};

// An op: its tensors, and what every layer needs of it, so that none of them asks its name.
struct op_schema {
  std::string_view op;
  std::vector<tensor_schema> tensors;  // inputs in the order they are written, then outputs
  std::vector<dim_agreement> agreements;
  // Only the reference computes it (matrix, the laws' view of rotate): no implementation is handed it.
  bool reference_only = false;
  // Its outputs are constants of the spec that pecheck knows (inv_freq): laws read them from the
  // binary64 reference, never from an implementation, which may then offer the other ops alone.
  bool spec_constant = false;
  // Each row of its one output reads only its own token's position row (and x), given the call's
  // length: a long call runs, prints and frees in chunks of tokens (op_chunks.hpp).
  bool splits_by_token = false;
  // The op whose backward pass this is (rotate_grad: rotate), or "": diagnose then also tries the
  // forward op in its place (a backward that forgot to transpose) and no gradient at all.
  std::string_view adjoint_of;
  // What a scheme that lists the op must have (checked when the scheme registers); none: any scheme.
  hook_check needs;
  // How the reference computes it, at every scalar type (ops.cpp).
  typed_hook<op_run_signature> run;
  row_labels rows;
};

// Every op, in the order `pecheck eval` lists them.
const std::vector<op_schema>& op_schemas();
// The op's schema; nullptr for an op pecheck does not know (callers treat it as an op without tensors).
const op_schema* find_op_schema(std::string_view op);
std::vector<std::string> op_names();

// Whether the tensor belongs to spec s (by the descriptor's kind and hooks).
bool applies(const tensor_schema& t, const spec& s);
// The op's inputs on s: those of the call, and with_constants also those of the spec.
std::vector<const tensor_schema*> inputs_of(std::string_view op, const spec& s, bool with_constants);
std::vector<const tensor_schema*> outputs_of(std::string_view op, const spec& s);
// What output `name` of op on s holds (real where the op has no such output).
element_kind output_kind(std::string_view op, const spec& s, std::string_view name);
// Whether the op's outputs are constants of the spec (op_schema::spec_constant).
bool is_spec_constant(std::string_view op);
// Whether the op on s takes the call input `name` ("pos", "x", ...).
bool takes_input(std::string_view op, const spec& s, std::string_view name);

// Whether the op on s reads rows [T, H, D] held in op_inputs::x (rotate's x, rotate_grad's dy).
bool takes_x_rows(std::string_view op, const spec& s);

// "[T, H, D]", or "[T] or [T, A]" for position rows: the notation of golden/README.md.
std::string shape_text(const shape_rule& r);

}  // namespace pe
