// The gate report as text (see report_printers.hpp).
#include <cmath>

#include <fmt/format.h>

#include "gate/report_printers.hpp"

namespace pe::gate {
namespace {

std::string line_of(const check_result& r, const std::string& dtype) {
  std::string out = fmt::format("{:<11} {:<28} {}", verdict_name(r.result), r.check, r.spec);
  if (r.result == verdict::pass && r.check == "determinism") out += fmt::format("  ({} case{}, bitwise)", r.cases, r.cases == 1 ? "" : "s");
  else if (r.result == verdict::pass && r.law) out += fmt::format("  ({} case{}; worst {:.3g} of its bound)", r.cases, r.cases == 1 ? "" : "s", r.worst_fraction);
  else if (r.result == verdict::pass) {
    out += fmt::format("  ({} case{}; worst {:.3g} ulp {}, {:.3g} of its bound)", r.cases, r.cases == 1 ? "" : "s", r.worst_ulps, dtype, r.worst_fraction);
  }
  // Cases an implementation declined are not passes: say how many were left out.
  if (r.unsupported > 0 && r.result != verdict::unsupported)
    out += fmt::format("\n    {} call{} answered unsupported: those cases were left out", r.unsupported, r.unsupported == 1 ? "" : "s");
  if (r.result == verdict::fail && std::isfinite(r.first_failure_fraction) && r.first_failure_fraction > 0)
    out += fmt::format("  (first failing case at {:.3g} times its bound)", r.first_failure_fraction);
  if (!r.detail.empty()) out += "\n    " + r.detail;
  if (r.result == verdict::fail) out += "\n    reproduce: " + r.reproduce;
  return out;
}

}  // namespace

std::string text_results(const gate_report& report) {
  std::string out = fmt::format("gate: {} at {} I/O, {} working, {} tolerance\n", report.implementation, report.dtype, report.working, report.tolerance);
  for (const auto& r : report.results) out += line_of(r, report.dtype) + "\n";
  for (const auto& spec : report.unchecked) out += fmt::format("NOTHING     {:<28} {}  (every check was unsupported or skipped)\n", "checked", spec);
  for (const auto& note : report.notes) out += fmt::format("note: {}\n", note);
  return out;
}

std::string text_summary(const gate_report& report) {
  std::string out;
  if (report.bench) {
    const double wall = report.bench->seconds, base = report.bench->baseline_seconds;
    out += fmt::format("bench: {:.3f} s for {} spec(s) ({:.3f} s per spec); baseline (the in-process reference, same checks) {:.3f} s; ratio {:.2f}\n",
                       wall, report.specs.size(), wall / static_cast<double>(report.specs.size()), base, base > 0 ? wall / base : 0.0);
  }
  if (report.baseline) out += report.baseline->text(report.baseline_path);
  return out + fmt::format("gate: {}\n", report.failed ? "FAIL" : "PASS");
}

}  // namespace pe::gate
