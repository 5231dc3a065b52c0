// A whole gate run: the implementation loaded, every check on every spec, the verdict, the bench timing.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gate/baseline_file.hpp"
#include "gate/checks.hpp"
#include "gate/sandbox.hpp"

namespace pe::gate {

// What `pecheck gate` was asked; the fields are its flags, whose names errors and reproduce lines quote.
struct run_request {
  implementation_flags implementation;  // --impl, --impl-cmd, --impl-reference, --isolation, the timeouts
  bool bench = false;
  std::vector<std::string> specs;  // as given: text or JSON
  // golden: the golden directory (the command line passes the binary's own, cli/golden_location.hpp);
  // a run whose golden_scope is not "none" needs its MANIFEST.json there (input_error otherwise).
  std::string dtype = "f32", working, tolerance = "standard", golden, golden_scope = "scheme";
  // --table-dtype: the dtype of the tables an op is handed (apply_tables' cos and sin); "" for the
  // I/O dtype.
  std::string table_dtype;
  // The positions the implementation is judged on: every draw up to it, golden cases past it left
  // out. The default, 2^40, is the top of every golden file and of --max-position; pecheck's own
  // reference is exact over all of int64 (eval, audit), and a kernel with a narrower native range
  // declares it here.
  std::int64_t max_pos = std::int64_t{1} << 40;
  // --allow-partial: ops whose declined cases the user accepts, so that their INCOMPLETE checks do
  // not fail the run (they still print INCOMPLETE, and the verdict line names the ops).
  std::vector<std::string> allow_partial;
  int cases = 100;
  // --layouts: the memory layouts the checks run in, each a pass of every check (gate/layouts.hpp);
  // empty for every layout the implementation offers.
  std::vector<std::string> layouts;
  // --time-budget: the wall time the implementation's calls may take in all, in seconds; 0 for the
  // default, default_time_budget_per_case_s x cases x specs x layouts.
  double time_budget_s = 0;
  std::string baseline;         // --baseline FILE: compare with a saved run ("" for none)
  double baseline_factor = 2;   // --baseline-factor
  std::uint64_t seed = 20261129;
  // Called as cases run (check name, cases so far, cases planned or 0); may be empty.
  std::function<void(const std::string&, int, int)> progress;
};

struct bench_timing {
  double seconds = 0;           // the implementation's checks, wall time
  double baseline_seconds = 0;  // the same checks on the in-process reference
};

struct gate_report {
  std::string implementation;                  // its name
  std::string dtype, working, tolerance;       // as the run took them
  std::string table_dtype;                     // the tables' dtype: dtype's unless --table-dtype named another
  std::vector<std::string> specs;              // canonical text
  std::vector<std::string> layouts;            // the layouts its checks ran in, one pass each
  std::vector<check_result> results;           // per spec: conformance, golden, determinism, the laws
  std::int64_t max_pos = 0;                    // the request's
  double time_budget_s = 0;                    // the budget the run held the implementation to (0: none, in process)
  std::uint64_t stderr_budget_bytes = 0;       // and its stderr's (0 in process, where there is none of its own)
  std::vector<std::string> allow_partial;      // the request's
  std::vector<std::string> unchecked;          // specs on which no check with positions passed: nothing of the spec's behaviour was seen
  int incomplete = 0;                          // INCOMPLETE checks that --allow-partial does not accept
  std::vector<std::string> notes;              // the implementation's notes (implementation::notes)
  sandbox::protections sandbox;                // what protected the gate from it
  std::optional<bench_timing> bench;
  std::optional<baseline_verdict> baseline;    // against --baseline
  std::string baseline_path;
  bool failed = false;                         // a FAIL, or a baseline regression
  bool nothing_supported = false;              // no call of any spec was answered: exit 2
  // FAIL (a check failed or the baseline regressed), INCOMPLETE (no failure, but a check the user
  // did not accept as partial, or a spec left unchecked), or PASS.
  std::string verdict() const { return failed ? "FAIL" : (incomplete > 0 || !unchecked.empty()) ? "INCOMPLETE" : "PASS"; }
  int exit_status() const { return nothing_supported ? 2 : verdict() == "PASS" ? 0 : 1; }
};

// Runs the gate. Throws input_error (exit 2) for a request it cannot run: a bad dtype, working
// precision, tolerance or spec, not exactly one implementation, one that will not load.
gate_report run(const run_request& request);

}  // namespace pe::gate
