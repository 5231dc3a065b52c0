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

// The real inputs in dtype d (each value rounded once), positions as int64. T5's bias also gets
// its table [buckets, heads] (the spec's seeded stand-in for trained weights), so that an
// implementation only looks entries up and never needs pecheck's generator (attend on T5 too).
// attend: q, k, v (absolute encodings: x, wq, wk, wv, heads), qpos, kpos, causal, as golden/README.md.
std::vector<io_tensor> io_inputs(std::string_view op, const spec& s, const op_inputs& in, dtype d);

// The ops whose inputs and outputs the gate can hand to an implementation.
const std::vector<std::string>& gate_ops();

// The outputs an implementation must fill for op on `in`: names and shapes from the binary64
// reference, real outputs in dtype d, buckets as int64.
std::vector<io_tensor> output_templates(std::string_view op, const spec& s, const op_inputs& in, dtype d);

}  // namespace pe::gate
