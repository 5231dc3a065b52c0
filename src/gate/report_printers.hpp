// The gate report's printers: text for the terminal, JSON and JUnit XML for files (report_*.cpp).
#pragma once
#include <string>

#include "gate/run.hpp"

namespace pe::gate {

// The header line, one line per check (with its detail and reproduce lines) and a NOTHING line per
// spec on which nothing passed.
std::string text_results(const gate_report& report);
// What follows the results: the bench line where the run was timed, the sandbox's lines (what was
// on, in short, and each protection that was off with why), then the verdict line: "gate:
// PASS", "gate: FAIL" or "gate: INCOMPLETE", the positions judged (--max-position) and the ops accepted
// as partial (--allow-partial), or "gate: NOTHING SUPPORTED" (exit 2).
std::string text_summary(const gate_report& report);

// {"format": "pecheck-gate/1", "implementation", "dtype", "working", "tolerance", "max_pos",
// "allow_partial", "time_budget_s", "stderr_budget_bytes", "verdict", "exit_status", "checks": [...], "unchecked", "notes", "sandbox": {"mode",
// "on": [...], "off": [...]}}.
std::string json_report(const gate_report& report);

// JUnit XML: one testcase per check and spec; FAIL and an INCOMPLETE not accepted by --allow-partial
// are failures, UNSUPPORTED, SKIPPED and an accepted INCOMPLETE are skipped; max_pos and
// allow_partial are the suite's properties.
std::string junit_report(const gate_report& report);

// A position as the verdict line says it: 2^k for a power of two, else the number.
std::string position_text(std::int64_t p);

}  // namespace pe::gate
