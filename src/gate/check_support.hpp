// What the gate's checks share (conformance, golden, determinism): the ops a scheme's checks run,
// and one case run on an implementation and compared with the exact reference.
#pragma once
#include <string>
#include <vector>

#include "gate/implementation.hpp"
#include "gate/tolerance.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe::gate {

// The ops the gate exercises for a scheme, the leading one first: every op the scheme lists but
// the reference-only ones (matrix, the laws' view of rotate) and those its descriptor names as
// gate gaps, with the leading op (rotate) ahead of the rest.
std::vector<std::string> ops_for(const spec& s);

// One case's outcome.
struct outcome {
  call_status status = call_status::ok;
  bool process_replaced = false;  // call_result's
  bool within = true;
  double worst_fraction = 0, worst_ulps = 0;
  std::string where, message;
};

// The case `drawn` (rounded to the run's dtypes first) run on impl and every output compared with
// the exact reference, element by element, within the error model's bound.
outcome run_case(implementation& impl, const std::string& op, const spec& s, const op_inputs& drawn, const error_model& m);

}  // namespace pe::gate
