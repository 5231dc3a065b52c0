// The gate report's printers: text for the terminal, JSON and JUnit XML for files (report_*.cpp).
#pragma once
#include <string>

#include "gate/run.hpp"

namespace pe::gate {

// The header line, one line per check (with its detail and reproduce lines) and a NOTHING line per
// spec on which nothing passed.
std::string text_results(const gate_report& report);
// What follows the results: the bench line where the run was timed, then "gate: PASS" or "gate: FAIL".
std::string text_summary(const gate_report& report);

// {"format": "pecheck-gate/1", "implementation", "dtype", "working", "tolerance", "checks": [...]}.
std::string json_report(const gate_report& report);

// JUnit XML: one testcase per check and spec; FAIL is a failure, UNSUPPORTED and SKIPPED are skipped.
std::string junit_report(const gate_report& report);

}  // namespace pe::gate
