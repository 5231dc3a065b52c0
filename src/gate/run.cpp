// A whole gate run (see run.hpp): the checks of checks.hpp over every spec, and what the run comes to.
#include "gate/run.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "gate/gate_baseline.hpp"
#include "gate/layouts.hpp"
#include "gate/tolerance.hpp"
#include "golden/golden_file.hpp"
#include "pe/error.hpp"
#include "pe/spec.hpp"
#include "properties/runner.hpp"

namespace pe::gate {
namespace {

// Every check on every spec in one layout, in report order.
std::vector<check_result> run_checks_in(implementation& target, const run_request& q, const std::vector<std::string>& specs,
                                        const error_model& model, const std::string& reproduce_prefix, const std::string& diagnose_prefix) {
  std::vector<check_result> out;
  std::set<std::string> golden_checked;  // a golden file is run once, for the first spec of its scheme
  const auto golden_files = std::make_shared<std::map<std::string, golden::golden_file>>();
  for (const auto& spec : specs) {
    gate_options g{spec, model, drawn_position_limit(parse_spec_any(spec), model, q.max_pos), q.max_pos, q.cases, q.seed, q.golden, reproduce_prefix};
    g.golden_own_spec_only = q.golden_scope == "spec";
    g.golden_checked = golden_checked;
    g.golden_files = golden_files;
    g.progress = q.progress;
    g.diagnose_prefix = diagnose_prefix;
    for (auto& c : check_conformance(target, g)) out.push_back(std::move(c));
    if (q.golden_scope != "none")
      for (auto& c : check_golden(target, g)) {
        if (c.check.starts_with("golden:")) golden_checked.insert(c.check.substr(7));
        out.push_back(std::move(c));
      }
    out.push_back(check_determinism(target, g));
    for (auto& law : check_laws(target, g)) out.push_back(std::move(law));
  }
  return out;
}

// Every check in every layout, a whole pass each: a kernel that reads its input as contiguous
// memory fails in the others. A run of contiguous inputs alone names no layout.
std::vector<check_result> run_checks(implementation& target, const run_request& q, const std::vector<std::string>& specs,
                                     const std::vector<std::string>& layouts, const error_model& model, const std::string& reproduce_prefix,
                                     const std::string& diagnose_prefix) {
  const bool named = layouts != std::vector<std::string>{"contiguous"};
  std::vector<check_result> out;
  for (const auto& layout : layouts) {
    const auto laid_out = presented_in(target, layout);
    const std::string prefix = named ? fmt::format("{} --layouts {}", reproduce_prefix, layout) : reproduce_prefix;
    for (auto& r : run_checks_in(*laid_out, q, specs, model, prefix, diagnose_prefix)) {
      if (named) r.layout = layout;
      out.push_back(std::move(r));
    }
  }
  return out;
}

// Seconds that `work` takes, wall time.
template <class Work>
double timed(Work&& work) {
  const auto started = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

gate_report run(const run_request& q) {
  gate_report report;
  const auto io = parse_dtype(q.dtype);
  report.dtype = q.dtype;
  report.working = working_precision(io, q.working);
  report.tolerance = q.tolerance;
  auto model = error_model::of(io, parse_dtype(report.working), q.tolerance);
  if (!q.table_dtype.empty()) model.tables = parse_dtype(q.table_dtype);
  report.table_dtype = std::string(dtype_name(model.tables));
  for (const auto& text : q.specs) report.specs.push_back(parse_spec_any(text).text());
  if (!q.baseline.empty()) read_baseline(q.baseline, gate_baseline_header);  // a bad file stops the run before it starts
  // A golden tree that is not there is an error, never a SKIPPED golden check: the verdict would
  // depend on where the command ran.
  if (q.golden_scope != "none" && !std::filesystem::is_regular_file(std::filesystem::path(q.golden) / "MANIFEST.json"))
    throw input_error(fmt::format("--golden {}: no MANIFEST.json there, so not a golden tree (--golden-scope none runs without golden values)",
                                  q.golden.empty() ? "''" : q.golden));
  auto impl = open_implementation(q.implementation, "gate");
  report.layouts = layouts_to_run(q.layouts, *impl);
  const bool isolated = !impl->in_process();
  if (isolated) {
    report.time_budget_s = q.time_budget_s > 0 ? q.time_budget_s
                                               : default_time_budget_per_case_s * q.cases * static_cast<double>(q.specs.size() * report.layouts.size());
    report.stderr_budget_bytes = q.implementation.stderr_budget_mib << 20;
    impl = within_run_budget(std::move(impl), report.time_budget_s, report.stderr_budget_bytes);
  }
  report.implementation = impl->name();
  const std::string impl_flag = q.implementation.text();
  const std::string reproduce_prefix =
      fmt::format("pecheck gate {} --dtype {} --working {} --tolerance {}{}", impl_flag, q.dtype, report.working, q.tolerance,
                  q.table_dtype.empty() ? "" : " --table-dtype " + q.table_dtype);
  const std::string diagnose_prefix = fmt::format("pecheck diagnose {} --dtype {} --working {} --tolerance {}", impl_flag, q.dtype, report.working, q.tolerance);
  const double seconds = timed([&] { report.results = run_checks(*impl, q, report.specs, report.layouts, model, reproduce_prefix, diagnose_prefix); });
  report.notes = impl->notes();
  report.sandbox = isolated ? sandbox::current() : sandbox::in_process();
  report.max_pos = q.max_pos;
  report.allow_partial = q.allow_partial;
  bool any_answered = false;
  for (auto& r : report.results) {
    report.failed = report.failed || r.result == verdict::fail;
    any_answered = any_answered || r.cases > 0 || r.result == verdict::fail;
    if (r.result != verdict::incomplete) continue;
    const bool accepted = !r.declined_ops.empty() && std::all_of(r.declined_ops.begin(), r.declined_ops.end(), [&](const auto& op) {
      return std::find(q.allow_partial.begin(), q.allow_partial.end(), op) != q.allow_partial.end();
    });
    r.accepted = accepted;
    report.incomplete += !accepted;
  }
  // A spec is checked only when some check passed (or was accepted partial) on calls with a
  // position past 0: an implementation that answers inv_freq alone, or position 0 alone, showed
  // nothing of the scheme's behaviour. (A golden file's result carries its own configuration as the spec.)
  for (const auto& spec : report.specs) {
    bool seen = false;
    for (const auto& r : report.results)
      seen = seen || (r.spec == spec && (r.result == verdict::pass || (r.result == verdict::incomplete && r.accepted)) && r.top_position > 0);
    if (!seen) report.unchecked.push_back(spec);
  }
  report.nothing_supported = !any_answered;
  if (!q.baseline.empty()) {
    report.baseline = compare_gate_baseline(report, q.baseline, q.baseline_factor);
    report.baseline_path = q.baseline;
    report.failed = report.failed || report.baseline->regressed;
  }
  if (q.bench) {
    // The baseline, measured in the same run: the same checks, cases and seed on pecheck's own
    // reference in process (no fork, no wire), so the ratio is the implementation's and the
    // isolation's share of the time.
    auto baseline = reference_implementation();
    const double base = timed([&] { run_checks(*baseline, q, report.specs, report.layouts, model, reproduce_prefix, diagnose_prefix); });
    report.bench = bench_timing{seconds, base};
  }
  return report;
}

}  // namespace pe::gate
