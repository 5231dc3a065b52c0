// `pecheck gate`: the options of gate::run (src/gate/run.hpp), and its report printed and written.
#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "cli/golden_location.hpp"
#include "cli/vocabulary.hpp"
#include "cli/model_source.hpp"
#include "convert/layer_specs.hpp"
#include "gate/gate_baseline.hpp"
#include "gate/op_io.hpp"
#include "gate/report_printers.hpp"
#include "gate/run.hpp"
#include "pe/error.hpp"

namespace pecheck {

std::function<int()> add_gate_command(CLI::App& app) {
  struct gate_cli {
    pe::gate::run_request request;
    std::string json, junit;
    model_source model;
    baseline_flags baseline;
  };
  auto o = std::make_shared<gate_cli>();
  auto& q = o->request;
  auto* cmd = app.add_subcommand("gate", "check an implementation (plugin, process or the reference itself) against the reference and golden values");
  add_implementation_flags(*cmd, q.implementation);
  cmd->add_flag("--bench", q.bench, "time each check, and the same checks on the in-process reference as the baseline");
  auto* spec = cmd->add_option("--spec", q.specs, "spec to check (repeatable)");
  add_model_source_flags(*cmd, o->model, spec, "check", "instead");
  cmd->add_option("--dtype", q.dtype, "I/O dtype: f32, f64, f16, bf16 (default f32)");
  cmd->add_option("--table-dtype", q.table_dtype,
                  "the dtype of the tables an op is handed (apply_tables' cos and sin): f64, f32, f16 or bf16 (default: --dtype's)")
      ->check(CLI::IsMember({"f64", "f32", "f16", "bf16"}));
  cmd->add_option("--working", q.working, "the implementation's working precision: f32 or f64 (default: f32, or f64 for --dtype f64)");
  cmd->add_option("--tolerance", q.tolerance, "strict (direct angles only), standard, loose (4x) or the angle coefficient C itself, a number >= 1 (proofs/gate_tolerance.md)");
  cmd->add_option("--max-position", q.max_pos, "the largest position the implementation is judged on (default 2^40, the most): draws reach it, golden cases past it are left out")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  add_deprecated_spelling(*cmd, "--max-pos", "--max-position", q.max_pos)->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd->add_option("--allow-partial", q.allow_partial,
                  "ops (comma-separated) whose declined cases are accepted as out of scope: their INCOMPLETE checks do not fail the run")
      ->delimiter(',')
      ->check(CLI::IsMember(pe::gate::gate_ops()));
  cmd->add_option("--layouts", q.layouts,
                  "memory layouts (comma-separated) in which a wire process's adapter hands it its [T, H, D] inputs, each a pass of every check: "
                  "contiguous, padded_heads, transposed, packed_qkv (default: every layout the implementation offers)")
      ->delimiter(',');
  cmd->add_option("--cases", q.cases, "random conformance cases per spec")->check(CLI::Range(1, 1000000));
  cmd->add_option("--time-budget", q.time_budget_s,
                  "seconds of wall time the implementation's calls may take in all (default 5 per case of --cases per spec); "
                  "calls past it fail at once")
      ->check(CLI::Range(0.001, 1e9));
  cmd->add_option("--seed", q.seed, "RapidCheck seed (fixed by default)");
  cmd->add_option("--golden", q.golden, "the golden directory (default: the one installed with this pecheck, found from its own location)");
  cmd->add_option("--golden-scope", q.golden_scope,
                  "scheme: every golden file of the spec's scheme (default); spec: only the files of the spec itself; none: no golden check")
      ->check(CLI::IsMember({"scheme", "spec", "none"}));
  add_baseline_flags(*cmd, o->baseline);
  cmd->add_option("--json", o->json, "write the results as JSON to FILE");
  cmd->add_option("--junit", o->junit, "write the results as JUnit XML to FILE (for CI dashboards)");
  return [o] {
    if (o->model.given()) {
      // Each layer kind's spec; layers without a position (NoPE) are reported, not gated.
      const std::string& file = o->model.file();
      const auto checked = read_model_specs(o->model);
      for (const auto& line : checked.lines) fmt::print("{} {}: {}\n", o->model.flag(), file, line);
      // Nothing checked is no verdict: exit 2, never a pass.
      if (checked.specs.empty()) throw pe::input_error(fmt::format("gate: no layer of {} has a positional encoding: nothing was checked", file));
      o->request.specs = checked.specs;
    }
    if (o->request.specs.empty()) throw pe::input_error("gate: --spec, --hf-config or --gguf is required");
    if (o->request.golden.empty() && o->request.golden_scope != "none") o->request.golden = tool_golden_dir();
    if (isatty(2)) {  // a progress line on a terminal only; logs and CI get the report alone
      // Until the first case: an interpreter (--impl-cmd) may take seconds to start.
      fmt::print(stderr, "\r  gate: starting {}", o->request.implementation.text());
      std::fflush(stderr);
      o->request.progress = [](const std::string& check, int done, int total) {
        if (total > 0) fmt::print(stderr, "\r  gate: {:<12} {:>6} / {:<6}\033[K", check, done, total);
        else fmt::print(stderr, "\r  gate: {:<12} {:>6} cases\033[K", check, done);
        std::fflush(stderr);
      };
    }
    o->request.baseline = o->baseline.compare;
    o->request.baseline_factor = o->baseline.factor;
    output_files files;
    files.open(o->json, "--json");
    files.open(o->junit, "--junit");
    files.open(o->baseline.save, "--save-baseline");
    const auto report = pe::gate::run(o->request);
    if (isatty(2)) fmt::print(stderr, "\r\033[K");  // clear the progress line
    // The files between the results and the verdict: one that cannot be written (opened before the
    // run, so only a write that fails now: a full disk) stops the command (exit 2) with the results
    // shown and no verdict line.
    fmt::print("{}", pe::gate::text_results(report));
    files.finish("--json", pe::gate::json_report(report));
    files.finish("--junit", pe::gate::junit_report(report));
    files.finish("--save-baseline", pe::gate::gate_baseline_text(report));
    fmt::print("{}", pe::gate::text_summary(report));
    return report.exit_status();
  };
}

}  // namespace pecheck
