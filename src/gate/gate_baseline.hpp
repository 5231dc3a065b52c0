// A gate run's regression baseline: each check's verdict and worst fraction of its bound as text, and a new run compared with it.
#pragma once
#include <string>

#include "gate/baseline_file.hpp"

namespace pe::gate {

struct gate_report;

inline constexpr const char* gate_baseline_header = "# pecheck gate baseline 1";

// "dtype", "working", "tolerance" lines, then "check VERDICT WORST_FRACTION CHECK SPEC" per result.
std::string gate_baseline_text(const gate_report& report);

// `report` against the baseline in `path`: a check that passed there and does not now, a check
// missing now (coverage shrank), or a worst fraction grown past `factor` times its baseline (both
// taken as at least a tenth of the bound: below it, a correct change of rounding moves them)
// regresses. input_error for a malformed file or one of another dtype, working precision or tolerance.
baseline_verdict compare_gate_baseline(const gate_report& report, const std::string& path, double factor);

}  // namespace pe::gate
