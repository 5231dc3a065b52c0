// The gate report as text (see report_printers.hpp).
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gate/report_printers.hpp"

namespace pe::gate {
namespace {

std::string line_of(const check_result& r, const std::string& dtype) {
  std::string out = fmt::format("{:<11} {:<28} {}", verdict_name(r.result), r.check, r.spec_and_layout());
  if (r.result == verdict::pass && r.check == "determinism") out += fmt::format("  ({} case{}, bitwise)", r.cases, r.cases == 1 ? "" : "s");
  else if (r.result == verdict::pass && r.law) out += fmt::format("  ({} case{}; worst {:.3g} of its bound)", r.cases, r.cases == 1 ? "" : "s", r.worst_fraction);
  else if (r.result == verdict::pass) {
    out += fmt::format("  ({} case{}; worst {:.3g} ulp {}, {:.3g} of its bound)", r.cases, r.cases == 1 ? "" : "s", r.worst_ulps, dtype, r.worst_fraction);
  }
  if (r.result == verdict::incomplete && r.accepted) out += "  (accepted: its declined ops are in --allow-partial)";
  // Cases an implementation declined are not passes: say how many were left out.
  if (r.unsupported > 0 && r.result != verdict::unsupported)
    out += fmt::format("\n    {} call{} answered unsupported: those cases were left out", r.unsupported, r.unsupported == 1 ? "" : "s");
  if (r.result == verdict::fail && std::isfinite(r.first_failure_fraction) && r.first_failure_fraction > 0)
    out += fmt::format("  (first failing case at {:.3g} times its bound)", r.first_failure_fraction);
  if (!r.detail.empty()) out += "\n    " + r.detail;
  if (r.result == verdict::fail) out += "\n    reproduce: " + r.reproduce;
  if (!r.diagnose.empty()) out += "\n    diagnose:  " + r.diagnose;
  return out;
}

}  // namespace

std::string text_results(const gate_report& report) {
  std::string out = fmt::format("gate: {} at {} I/O{}, {} working, {} tolerance\n", report.implementation, report.dtype,
                                report.table_dtype.empty() || report.table_dtype == report.dtype ? "" : fmt::format(" ({} tables)", report.table_dtype), report.working, report.tolerance);
  for (const auto& r : report.results) out += line_of(r, report.dtype) + "\n";
  for (const auto& spec : report.unchecked)
    out += fmt::format("NOTHING     {:<28} {}  (no check passed on a call with a position past 0)\n", "checked", spec);
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
  // What protected the gate from the implementation: a verdict reached without a protection says so.
  out += sandbox::report_lines(report.sandbox);
  if (report.nothing_supported) return out + fmt::format("gate: NOTHING SUPPORTED: {} answered no call of any spec\n", report.implementation);
  out += fmt::format("gate: {} at positions up to {}", report.verdict(), position_text(report.max_pos));
  if (!report.allow_partial.empty()) out += fmt::format(", partial accepted: {}", fmt::join(report.allow_partial, ", "));
  if (report.verdict() == "INCOMPLETE") {
    out += fmt::format(" ({} check{} INCOMPLETE, {} spec{} unchecked: what was declined was not checked; --allow-partial OP[,OP] accepts "
                       "an op's declined cases, --max-position N declares a narrower range of positions)",
                       report.incomplete, report.incomplete == 1 ? "" : "s", report.unchecked.size(), report.unchecked.size() == 1 ? "" : "s");
  }
  return out + "\n";
}

std::string position_text(std::int64_t p) {
  if (p > 0 && (p & (p - 1)) == 0) return fmt::format("2^{}", 63 - __builtin_clzll(static_cast<unsigned long long>(p)));
  return std::to_string(p);
}

}  // namespace pe::gate
