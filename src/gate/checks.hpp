// The gate's checks on one implementation and one spec: conformance, golden, determinism and the laws.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gate/implementation.hpp"
#include "gate/tolerance.hpp"
#include "properties/case_text.hpp"

namespace pe::golden {
struct golden_file;
}

namespace pe::gate {

struct gate_options {
  std::string spec;      // canonical text
  error_model model;
  std::int64_t max_pos = std::int64_t{1} << 40;       // the largest position drawn for this spec (drawn_position_limit)
  std::int64_t declared_max_pos = std::int64_t{1} << 40;  // --max-position as given: golden cases past it are left out
  int cases = 100;
  std::uint64_t seed = 20261129;
  std::filesystem::path golden_dir = "golden";
  std::string reproduce_prefix;  // "pecheck gate --impl X" : checks append their own flags
  // "pecheck diagnose --impl X --dtype ...": a conformance FAIL appends --spec and --op, so that the
  // report ends with the command that names the convention the implementation computes instead.
  std::string diagnose_prefix;
  // Called as cases run (check name, cases run so far, cases planned or 0 if unknown); may be empty.
  std::function<void(const std::string&, int, int)> progress;
  // Shrinking steps a failing check may spend calling the implementation: the smallest failing
  // case found within them is the one shown. Measured (2026-12-05): the 45 C mutants shrink in
  // 130 to 1,012 steps, but one that fails only past 8 heads shrank every element of a 9-head case
  // in 7,348 steps (70 s). 1,000 keeps every other mutant's minimal case but head_stride's (1,012
  // steps), and a failing check's shrinking to a few seconds (5 ms a step for a 9-head case).
  int shrink_budget = 1000;
  bool golden_own_spec_only = false;  // golden: only the files whose spec is this one (--golden-scope spec)
  std::set<std::string> golden_checked;  // golden files already run for an earlier spec: not run again
  // The golden files the run has read, by path, shared by its specs: each file is parsed once
  // however many specs look for their scheme's files (null: parsed afresh each time).
  std::shared_ptr<std::map<std::string, golden::golden_file>> golden_files;
};

// incomplete: no case failed, but the implementation declined some of the cases drawn, so that
// fewer than the cases asked for were answered or some class of case drawn was never answered
// (coverage.hpp): what was not answered was not checked.
enum class verdict { pass, fail, unsupported, skipped, incomplete };
std::string_view verdict_name(verdict v);

struct check_result {
  std::string check;  // "conformance.<op>", "golden:<file>", "determinism", or a law's id
  std::string spec;
  verdict result = verdict::pass;
  int cases = 0;
  double worst_ulps = 0;        // worst error in ulps of the I/O dtype
  double worst_fraction = 0;    // worst error / bound
  double first_failure_fraction = 0;  // error / bound on the first failing case before shrinking: the detection margin
  std::string worst_where;      // which element
  std::string detail;           // why it failed / was skipped; the minimal case, short
  // A FAIL's minimal case, whole: (name, value) per input handed to the implementation, or per
  // value a law drew. The report prints it short (props::case_lines); --json has it all.
  props::drawn_case minimal_case;
  std::string reproduce;
  std::string diagnose;  // a conformance FAIL of an op diagnose probes: the pecheck diagnose command to run next
  bool law = false;  // a law's check: no reference is compared, so there is no error in ulps
  int unsupported = 0;  // calls answered unsupported: their cases were left out, not passed
  int planned = 0;      // the cases the check asked for: a PASS answered all of them
  std::vector<std::string> never_answered;  // classes of case drawn that no answer covered (coverage.hpp)
  std::vector<std::string> declined_ops;    // the ops of the calls answered unsupported
  std::int64_t top_position = 0;            // the largest position among the answered calls
  bool accepted = false;                    // INCOMPLETE with every declined op in --allow-partial (run.cpp)
  // The memory layout its calls' inputs were presented in (gate/layouts.hpp), "" in a run of
  // contiguous inputs alone.
  std::string layout;
  // The spec, followed by " [layout L]" when the check ran in a layout: what the text report, the
  // JUnit names and baseline lines show.
  std::string spec_and_layout() const { return layout.empty() ? spec : spec + " [layout " + layout + "]"; }
};

// Turns a passing result into INCOMPLETE when fewer than r.planned cases were answered or a class
// drawn was never answered, saying which; any other result is left as it is.
void hold_to_coverage(check_result& r);

// One result per op of the scheme: conformance.rotate and conformance.inv_freq for the RoPE
// family, conformance.bucket and conformance.bias for T5, conformance.encode, conformance.bias ...
// The report's "minimal case" lines of a failed check: the shrunk case's values by name, long ones
// shortened, within 120 columns, saying so where shrinking stopped at o.shrink_budget; "" for none.
std::string minimal_case_line(const gate_options& o, bool shrink_stopped, const props::drawn_case& example);

std::vector<check_result> check_conformance(implementation& impl, const gate_options& o);
// One result per golden file of the scheme ("golden:<path>"), or of the spec alone with
// golden_own_spec_only, less those in golden_checked; a single SKIPPED "golden" when there is
// none at all.
std::vector<check_result> check_golden(implementation& impl, const gate_options& o);
check_result check_determinism(implementation& impl, const gate_options& o);
// One result per registry law marked on_implementations that applies to the spec's scheme, run on
// the implementation alone (laws.cpp): no reference output is compared, only the law's identity.
std::vector<check_result> check_laws(implementation& impl, const gate_options& o);

}  // namespace pe::gate
