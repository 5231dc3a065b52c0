// `pecheck audit`: the sweep of src/audit over a position range, its report printed and its profile written; `audit merge` joins shards.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "audit/baseline.hpp"
#include "audit/html.hpp"
#include "audit/profile_check.hpp"
#include "audit/report.hpp"
#include "audit/shard_environment.hpp"
#include "audit/sweep.hpp"
#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/model_source.hpp"
#include "convert/layer_specs.hpp"
#include "gate/sandbox.hpp"
#include "pe/error.hpp"
#include "pe/op_chunks.hpp"
#include "pe/parallel.hpp"
#include "pe/spec.hpp"

namespace pecheck {
namespace {

// The profile in a --json file written by audit, its claims re-derived from its setup;
// input_error naming the file for anything wrong.
pe::audit::audit_profile read_profile(const std::string& path) {
  auto p = pe::audit::profile_from_json(read_json_file(path, path), path);
  pe::audit::check_profile_claims(p, path);
  return p;
}

// The report on stdout, the profile to --json, the page to --html, the baseline compared and saved; exit 0 when it
// passed (and did not regress), 1 otherwise.
int finish(const pe::audit::audit_profile& p, output_files& files, const baseline_flags& baseline, bool whole = false) {
  fmt::print("{}", pe::audit::text_report(p));
  files.finish("--json", pe::audit::to_json(p).dump(1) + "\n");
  files.finish("--html", pe::audit::html_report(p));
  bool passed = pe::audit::audit_passed(p);
  // Merged parts must make up the whole set: a missing shard is no pass.
  if (whole && !p.whole_set()) {
    fmt::print("audit merge: the parts cover {} of the {} positions: a shard is missing\n", [&] {
      std::int64_t n = 0;
      for (const auto& r : p.assigned) n += r.second - r.first;
      return n;
    }(), p.setup.position_count);
    passed = false;
  }
  if (!baseline.compare.empty()) {
    const auto v = pe::audit::compare_with_baseline(p, baseline.compare, baseline.factor);
    fmt::print("{}", v.text(baseline.compare));
    passed = passed && !v.regressed;
  }
  files.finish("--save-baseline", pe::audit::baseline_text(p));
  fmt::print("{}\n", passed ? "audit: PASS" : "audit: FAIL");
  return passed ? 0 : 1;
}

// One sweep with its progress bar; with bench, its wall time and throughput printed.
pe::audit::audit_profile sweep(pe::audit::audit_request& q, bool bench) {
  std::unique_ptr<progress_line> bar;
  q.progress = [&bar](std::int64_t done, std::int64_t total) {
    if (!bar) bar = std::make_unique<progress_line>("audit", total, "positions");
    bar->update(done);
  };
  const auto started = std::chrono::steady_clock::now();
  auto profile = pe::audit::run_audit(q);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  bar.reset();
  q.progress = nullptr;
  if (bench) {
    const auto elements = static_cast<double>(profile.total().count);
    fmt::print("bench: {:.0f} elements checked in {:.3f} s (wall, the implementation's start included): {:.1f} M elements/s on {} thread(s)\n",
               elements, seconds, elements / seconds / 1e6, pe::worker_threads());
  }
  return profile;
}

// audit merge reads its parts' profiles: of audit's own options only those that act on the
// merged report apply (--html, --baseline, --baseline-factor, --save-baseline); a sweep option
// given with it (--spec, --positions, --json before "merge", ...) would be ignored, so it is refused.
void refuse_sweep_options(const CLI::App& audit) {
  for (const CLI::Option* option : audit.get_options()) {
    const std::string name = option->get_name();
    if (option->count() == 0 || name == "--html" || name == "--baseline" || name == "--baseline-factor" || name == "--save-baseline") continue;
    if (name == "--json") throw pe::input_error("audit merge: --json before 'merge' is the sweep's; give it after 'merge' to write the merged profile");
    throw pe::input_error(fmt::format("audit merge: {} is an option of the sweep, not of merge (merge takes --json, --html, --baseline, "
                                      "--baseline-factor and --save-baseline)", name));
  }
}

// --shard auto (or auto/N) made i/n from the scheduler's variables, saying which on stderr: stdout
// is the report, and a sharded run's report then stays that of --shard i/n; the profile does not
// carry the line either, so audit merge's report is still the unsharded run's.
void resolve_auto_shard(std::string& shard) {
  if (!pe::audit::is_auto_shard(shard)) return;
  const auto found = pe::audit::shard_from_environment(shard, [](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  });
  fmt::print(stderr, "audit: --shard {}: shard {}/{} from {}\n", shard, found.part.index, found.part.count, found.source);
  shard = fmt::format("{}/{}", found.part.index, found.part.count);
}

}  // namespace

std::function<int()> add_audit_command(CLI::App& app) {
  struct audit_cli {
    pe::audit::audit_request request;
    std::string json, html;
    model_source model;
    std::vector<std::string> parts;
    std::string merged_json;
    baseline_flags baseline;
    bool bench = false;
  };
  auto o = std::make_shared<audit_cli>();
  auto& q = o->request;
  auto* cmd = app.add_subcommand("audit", "measure an implementation's error at every position of a range, by position decade and frequency band");
  add_implementation_flags(*cmd, q.implementation);
  auto* spec = cmd->add_option("--spec", q.spec, "the spec to audit");
  add_model_source_flags(*cmd, o->model, spec, "audit", "in turn");
  cmd->add_option("--dtype", q.dtype, "I/O dtype: f32, f64, f16, bf16 (default f32)");
  cmd->add_option("--working", q.working, "the implementation's working precision: f32 or f64 (default: f32, or f64 for --dtype f64)");
  cmd->add_option("--tolerance", q.tolerance, "the gate's bound the errors are measured against: strict, standard, loose or C");
  cmd->add_option("--positions", q.positions, "a:b (every position a <= p < b) or log:a:b:N (N log-spaced); numbers may be 2^k (default 0:4096)");
  cmd->add_option("--tokens-per-call", q.tokens_per_call, "positions per call of the implementation (default 1024)");
  cmd->add_option("--op", q.op,
                  "the op to sweep: rotate (the RoPE family's default), rotate_grad, rotate_qk (k with half the heads) or apply_tables "
                  "(the positions' exact tables, in the I/O dtype); encode for absolute encodings");
  cmd->add_option("--heads", q.heads, "heads of x for rotate (default 8)");
  cmd->add_option("--seed", q.seed, "seed of x");
  cmd->add_option("--shard", q.shard,
                  "i/n: sweep the i-th of n equal parts of the positions (merge the parts' --json with audit merge); auto: i/n from a "
                  "scheduler's variables (Slurm array, GitLab, Buildkite, CircleCI, GoogleTest sharding); auto/N: n is N (a Kubernetes "
                  "Indexed Job gives its index only)");
  cmd->add_option("--json", o->json, "write the profile as JSON to FILE (audit merge reads these)");
  add_baseline_flags(*cmd, o->baseline);
  cmd->add_option("--html", o->html, "write one self-contained page (inline SVG plots and the tables) to FILE");
  cmd->add_flag("--bench", o->bench, "print the sweep's wall time and checked elements per second (scripts/bench-audit sets it beside same-run baselines)");
  auto* merge = cmd->add_subcommand("merge", "join the --json profiles of an audit's shards into one report, the same as an unsharded run");
  merge->add_option("parts", o->parts, "the shards' --json files")->required();
  merge->fallthrough();  // --baseline and the rest are audit's options
  merge->add_option("--json", o->merged_json, "write the merged profile as JSON to FILE");
  merge->footer("audit's --html FILE, --baseline FILE [--baseline-factor X] and --save-baseline FILE apply to the merged report too; its other options belong to the sweep and are refused here");
  return [o, cmd, merge] {
    if (merge->parsed()) {
      refuse_sweep_options(*cmd);
      output_files files;
      files.open(o->merged_json, "--json");
      files.open(o->html, "--html");
      files.open(o->baseline.save, "--save-baseline");
      pe::audit::audit_profile p = read_profile(o->parts.at(0));
      for (std::size_t k = 1; k < o->parts.size(); ++k) p.merge(read_profile(o->parts[k]));
      return finish(p, files, o->baseline, true);
    }
    // Before anything is printed or read: a shard that cannot be found stops the audit in one line.
    resolve_auto_shard(o->request.shard);
    std::vector<std::string> specs{o->request.spec};
    if (o->model.given()) {
      // Each layer kind's spec in turn; layers without a position (NoPE) are reported, not swept.
      const std::string& file = o->model.file();
      const std::string flag = o->model.flag();
      const auto checked = read_model_specs(o->model);
      // The audit sweeps an op that runs position by position; a scheme without one (Llama 4's
      // temperature, ALiBi, T5) is the gate's to check.
      specs.clear();
      std::vector<std::string> unswept;
      for (const auto& text : checked.specs) {
        const auto& ops = pe::parse_spec(text).info().ops;
        (std::any_of(ops.begin(), ops.end(), [](const std::string& op) { return pe::splits_by_token(op); }) ? specs : unswept).push_back(text);
      }
      const bool files = !o->json.empty() || !o->html.empty() || !o->baseline.compare.empty() || !o->baseline.save.empty();
      if (specs.size() > 1 && files) {
        throw pe::input_error(fmt::format("audit: {} {} gives {} specs to sweep, and --json, --html, --baseline and --save-baseline "
                                          "hold one audit: audit them one at a time with --spec",
                                          flag, file, specs.size()));
      }
      for (const auto& line : checked.lines) fmt::print("{} {}: {}\n", flag, file, line);
      for (const auto& text : unswept) {
        fmt::print("{} {}: {}: no op runs position by position, nothing to sweep (pecheck gate checks it)\n", flag, file, text);
      }
      // Nothing swept is no verdict: exit 2, never a pass.
      if (specs.empty()) throw pe::input_error(fmt::format("audit: no layer of {} has a spec to sweep: nothing was audited", file));
    }
    if (specs.front().empty()) throw pe::input_error("audit: --spec, --hf-config or --gguf is required");
    // A baseline that cannot be read stops the audit before it sweeps.
    if (!o->baseline.compare.empty()) pe::gate::read_baseline(o->baseline.compare, pe::audit::audit_baseline_header);
    output_files files;
    files.open(o->json, "--json");
    files.open(o->html, "--html");
    files.open(o->baseline.save, "--save-baseline");
    int status = 0;
    for (const auto& s : specs) {
      if (specs.size() > 1) fmt::print("\naudit of {}\n", s);
      o->request.spec = s;
      const auto profile = sweep(o->request, o->bench);
      // What protected the gate from the implementation (the parts' JSON, merged across machines, does not carry it).
      fmt::print("{}", pe::gate::sandbox::report_lines(o->request.implementation.reference ? pe::gate::sandbox::in_process()
                                                                                          : pe::gate::sandbox::current()));
      status = std::max(status, finish(profile, files, o->baseline));
    }
    return status;
  };
}

}  // namespace pecheck
