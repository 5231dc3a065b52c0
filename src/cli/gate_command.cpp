// `pecheck gate`: puts an implementation (a C ABI plugin) through conformance, golden and determinism checks.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "properties/runner.hpp"
#include "gate/checks.hpp"
#include "pe/error.hpp"
#include "pe/spec.hpp"

namespace pecheck {
namespace {

struct gate_cli {
  std::string impl, impl_cmd;
  bool reference = false, bench = false;
  std::vector<std::string> specs;
  std::string dtype = "f32", working, tolerance = "standard", golden = "golden", golden_scope = "scheme", json, junit;
  std::int64_t max_pos = std::int64_t{1} << 20;
  int cases = 100, timeout_ms = 10000;
  std::uint64_t seed = 20261129;
};

std::string line_of(const pe::gate::check_result& r, const std::string& dtype) {
  std::string out = fmt::format("{:<11} {:<28} {}", pe::gate::verdict_name(r.result), r.check, r.spec);
  if (r.result == pe::gate::verdict::pass && r.check == "determinism") out += fmt::format("  ({} case{}, bitwise)", r.cases, r.cases == 1 ? "" : "s");
  else if (r.result == pe::gate::verdict::pass && r.law) out += fmt::format("  ({} case{}; worst {:.3g} of its bound)", r.cases, r.cases == 1 ? "" : "s", r.worst_fraction);
  else if (r.result == pe::gate::verdict::pass) {
    out += fmt::format("  ({} case{}; worst {:.3g} ulp {}, {:.3g} of its bound)", r.cases, r.cases == 1 ? "" : "s", r.worst_ulps, dtype, r.worst_fraction);
  }
  // Cases an implementation declined are not passes: say how many were left out.
  if (r.unsupported > 0 && r.result != pe::gate::verdict::unsupported)
    out += fmt::format("\n    {} call{} answered unsupported: those cases were left out", r.unsupported, r.unsupported == 1 ? "" : "s");
  if (r.result == pe::gate::verdict::fail && std::isfinite(r.first_failure_fraction) && r.first_failure_fraction > 0)
    out += fmt::format("  (first failing case at {:.3g} times its bound)", r.first_failure_fraction);
  if (!r.detail.empty()) out += "\n    " + r.detail;
  if (r.result == pe::gate::verdict::fail) out += "\n    reproduce: " + r.reproduce;
  return out;
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JUnit XML: one testcase per check and spec; FAIL is a failure, UNSUPPORTED and SKIPPED are skipped.
std::string junit_text(const std::string& impl, const std::vector<pe::gate::check_result>& results) {
  int failures = 0, skipped = 0;
  for (const auto& r : results) {
    failures += r.result == pe::gate::verdict::fail;
    skipped += r.result == pe::gate::verdict::unsupported || r.result == pe::gate::verdict::skipped;
  }
  std::string out = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"pecheck gate: {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                                xml_escaped(impl), results.size(), failures, skipped);
  for (const auto& r : results) {
    out += fmt::format("  <testcase classname=\"{}\" name=\"{}\">", r.check, xml_escaped(r.spec));
    if (r.result == pe::gate::verdict::fail) {
      out += fmt::format("<failure message=\"{}\">{}\nreproduce: {}</failure>", xml_escaped(r.detail.substr(0, r.detail.find('\n'))),
                         xml_escaped(r.detail), xml_escaped(r.reproduce));
    } else if (r.result != pe::gate::verdict::pass) {
      out += fmt::format("<skipped message=\"{}\"/>", xml_escaped(std::string(pe::gate::verdict_name(r.result)) + ": " + r.detail));
    }
    out += "</testcase>\n";
  }
  return out + "</testsuite>\n";
}


}  // namespace

std::function<int()> add_gate_command(CLI::App& app) {
  auto o = std::make_shared<gate_cli>();
  auto* cmd = app.add_subcommand("gate", "check an implementation (plugin, process or the reference itself) against the reference and golden values");
  auto* lib = cmd->add_option("--impl", o->impl, "the implementation: a shared library exporting pecheck/impl.h");
  auto* wire = cmd->add_option("--impl-cmd", o->impl_cmd, "the implementation: a command speaking the wire protocol on stdin/stdout");
  auto* own = cmd->add_flag("--impl-reference", o->reference, "the implementation: pecheck's own reference at --dtype, in process");
  lib->excludes(wire)->excludes(own);
  wire->excludes(own);
  cmd->add_flag("--bench", o->bench, "time each check, and the same checks on the in-process reference as the baseline");
  cmd->add_option("--spec", o->specs, "spec to check (repeatable)")->required();
  cmd->add_option("--dtype", o->dtype, "I/O dtype: f32, f64, f16, bf16 (default f32)");
  cmd->add_option("--working", o->working, "the implementation's working precision: f32 or f64 (default: f32, or f64 for --dtype f64)");
  cmd->add_option("--tolerance", o->tolerance, "strict (direct angles only), standard, loose (4x) or the angle coefficient C itself, a number >= 1 (proofs/gate_tolerance.md)");
  cmd->add_option("--max-pos", o->max_pos, "largest position drawn (default 2^20)")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd->add_option("--cases", o->cases, "random conformance cases per spec")->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", o->seed, "RapidCheck seed (fixed by default)");
  cmd->add_option("--timeout-ms", o->timeout_ms, "time limit of one call")->check(CLI::Range(1, 3600000));
  cmd->add_option("--golden", o->golden, "the golden directory (default golden)");
  cmd->add_option("--golden-scope", o->golden_scope,
                  "scheme: every golden file of the spec's scheme (default); spec: only the files of the spec itself; none: no golden check")
      ->check(CLI::IsMember({"scheme", "spec", "none"}));
  cmd->add_option("--json", o->json, "write the results as JSON to FILE");
  cmd->add_option("--junit", o->junit, "write the results as JUnit XML to FILE (for CI dashboards)");
  return [o] {
    const auto io = pe::gate::parse_dtype(o->dtype);
    std::string working_name = o->working.empty() ? (io == pe::gate::dtype::f64 ? "f64" : "f32") : o->working;
    if (working_name != "f32" && working_name != "f64") throw pe::input_error(fmt::format("--working '{}' is not f32 or f64", working_name));
    const auto model = pe::gate::error_model::of(io, pe::gate::parse_dtype(working_name), o->tolerance);
    std::vector<std::string> specs;
    for (const auto& text : o->specs) specs.push_back(pe::parse_spec_any(text).text());
    if (!o->impl.empty() + !o->impl_cmd.empty() + o->reference != 1) {
      throw pe::input_error("gate: give one of --impl LIB, --impl-cmd COMMAND, --impl-reference");
    }
    auto impl = o->reference           ? pe::gate::reference_implementation()
                : !o->impl_cmd.empty() ? pe::gate::start_wire(o->impl_cmd, o->timeout_ms)
                                       : pe::gate::load_plugin(o->impl, o->timeout_ms);
    const std::string impl_flag = o->reference           ? std::string("--impl-reference")
                                  : !o->impl_cmd.empty() ? "--impl-cmd " + pe::props::shell_quote(o->impl_cmd)
                                                         : "--impl " + pe::props::shell_quote(o->impl);
    std::vector<pe::gate::check_result> results;
    const auto run_all = [&](pe::gate::implementation& target, std::vector<pe::gate::check_result>& into) {
      std::set<std::string> golden_checked;  // a golden file is run once, for the first spec of its scheme
      for (const auto& spec : specs) {
        pe::gate::gate_options g{spec, model, o->max_pos, o->cases, o->seed, o->golden,
                                 fmt::format("pecheck gate {} --dtype {} --working {} --tolerance {}", impl_flag, o->dtype,
                                             working_name, o->tolerance)};
        g.golden_own_spec_only = o->golden_scope == "spec";
        g.golden_checked = golden_checked;
        if (isatty(2)) {  // a progress line on a terminal only; logs and CI get the report alone
          g.progress = [](const std::string& check, int done, int total) {
            if (total > 0) fmt::print(stderr, "\r  {:<12} {:>6} / {:<6}", check, done, total);
            else fmt::print(stderr, "\r  {:<12} {:>6} cases    ", check, done);
            std::fflush(stderr);
          };
        }
        for (auto& c : pe::gate::check_conformance(target, g)) into.push_back(std::move(c));
        if (o->golden_scope != "none")
          for (auto& c : pe::gate::check_golden(target, g)) {
            if (c.check.starts_with("golden:")) golden_checked.insert(c.check.substr(7));
            into.push_back(std::move(c));
          }
        into.push_back(pe::gate::check_determinism(target, g));
        for (auto& law : pe::gate::check_laws(target, g)) into.push_back(std::move(law));
      }
    };
    using seconds = std::chrono::duration<double>;
    const auto started = std::chrono::steady_clock::now();
    run_all(*impl, results);
    const double wall = seconds(std::chrono::steady_clock::now() - started).count();
    if (isatty(2)) fmt::print(stderr, "\r{:40}\r", "");  // clear the progress line
    bool failed = false;
    fmt::print("gate: {} at {} I/O, {} working, {} tolerance\n", impl->name(), o->dtype, working_name, o->tolerance);
    for (const auto& r : results) {
      fmt::print("{}\n", line_of(r, o->dtype));
      failed = failed || r.result == pe::gate::verdict::fail;
    }
    // A spec on which nothing passed was not checked at all: that is no green light.
    for (const auto& spec : specs) {
      bool any_pass = false;
      for (const auto& r : results) any_pass = any_pass || (r.spec == spec && r.result == pe::gate::verdict::pass);
      if (!any_pass) {
        fmt::print("NOTHING     {:<28} {}  (every check was unsupported or skipped)\n", "checked", spec);
        failed = true;
      }
    }
    if (!o->json.empty()) {
      nlohmann::ordered_json j;
      j["format"] = "pecheck-gate/1";
      j["implementation"] = impl->name();
      j["dtype"] = o->dtype;
      j["working"] = working_name;
      j["tolerance"] = o->tolerance;
      j["checks"] = nlohmann::ordered_json::array();
      for (const auto& r : results) {
        j["checks"].push_back({{"check", r.check}, {"spec", r.spec}, {"result", pe::gate::verdict_name(r.result)}, {"cases", r.cases},
                               {"unsupported_calls", r.unsupported}, {"worst_ulps", r.worst_ulps}, {"worst_fraction_of_bound", r.worst_fraction},
                               {"first_failure_fraction_of_bound", std::isfinite(r.first_failure_fraction) ? nlohmann::ordered_json(r.first_failure_fraction) : nlohmann::ordered_json(nullptr)}, {"worst", r.worst_where},
                               {"detail", r.detail}, {"reproduce", r.reproduce}});
      }
      write_file_atomically(o->json, j.dump(2) + "\n", "--json");
    }
    if (!o->junit.empty()) write_file_atomically(o->junit, junit_text(impl->name(), results), "--junit");
    if (o->bench) {
      // The baseline, measured in the same run: the same checks, cases and seed on pecheck's own
      // reference in process (no fork, no wire), so the ratio is the implementation's and the
      // isolation's share of the time.
      std::vector<pe::gate::check_result> baseline_results;
      auto baseline = pe::gate::reference_implementation();
      const auto base_started = std::chrono::steady_clock::now();
      run_all(*baseline, baseline_results);
      const double base = seconds(std::chrono::steady_clock::now() - base_started).count();
      fmt::print("bench: {:.3f} s for {} spec(s) ({:.3f} s per spec); baseline (the in-process reference, same checks) {:.3f} s; ratio {:.2f}\n",
                 wall, specs.size(), wall / static_cast<double>(specs.size()), base, base > 0 ? wall / base : 0.0);
    }
    fmt::print("gate: {}\n", failed ? "FAIL" : "PASS");
    return failed ? 1 : 0;
  };
}

}  // namespace pecheck
