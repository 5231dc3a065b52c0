// An op's inputs and expected outputs as the gate hands them to an implementation (names, dtypes, shapes of pecheck/impl.h).
#pragma once
#include <string_view>
#include <vector>

#include "gate/io.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe::gate {

// Real values rounded once to dtype d, as an implementation receives them.
tensor<double> rounded(const tensor<double>& t, dtype d);

// The op's inputs as the op table (pe/op_schema.hpp) names them: reals in dtype d (each value
// rounded once), integers as int64. T5's bias and attend also get the spec's table [buckets,
// heads] (its seeded stand-in for trained weights), so that an implementation only looks
// entries up and never needs pecheck's generator. Tables (op_schema's `table`: apply_tables' cos
// and sin) are in dtype `tables` instead.
std::vector<io_tensor> io_inputs(std::string_view op, const spec& s, const op_inputs& in, dtype d, dtype tables);
// The op's real inputs on s (its schema's) rounded to d (tables to `tables`), as io_inputs hands
// them to the implementation: what the reference must be computed from.
op_inputs rounded_inputs(std::string_view op, const spec& s, op_inputs in, dtype d, dtype tables);
// The dtype input `name` of op is handed in: `tables` for a table, else d.
dtype input_dtype(std::string_view op, std::string_view name, dtype d, dtype tables);

// The other way, as an implementation reads them (the in-process reference): input_error naming
// the op and the tensor for one missing, unknown or malformed.
op_inputs op_inputs_of(std::string_view op, const spec& s, const std::vector<io_tensor>& inputs);

// The ops whose inputs and outputs the gate can hand to an implementation: all but the
// reference's own views (matrix).
const std::vector<std::string>& gate_ops();

// The outputs an implementation must fill for op on `in`: names and kinds from the op table,
// shapes from its rules or else from the binary64 reference; real outputs in dtype d, integer
// ones (buckets) as int64.
std::vector<io_tensor> output_templates(std::string_view op, const spec& s, const op_inputs& in, dtype d);

}  // namespace pe::gate
