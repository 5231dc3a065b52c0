// The gate report as JSON (see report_printers.hpp).
#include <cmath>

#include <nlohmann/json.hpp>

#include "gate/report_printers.hpp"

namespace pe::gate {

std::string json_report(const gate_report& report) {
  nlohmann::ordered_json j;
  j["format"] = "pecheck-gate/1";
  j["implementation"] = report.implementation;
  j["dtype"] = report.dtype;
  j["working"] = report.working;
  j["table_dtype"] = report.table_dtype;
  j["tolerance"] = report.tolerance;
  j["max_pos"] = report.max_pos;
  j["allow_partial"] = report.allow_partial;
  j["time_budget_s"] = report.time_budget_s;
  j["stderr_budget_bytes"] = report.stderr_budget_bytes;
  j["layouts"] = report.layouts;
  j["verdict"] = report.nothing_supported ? "NOTHING SUPPORTED" : report.verdict();
  j["exit_status"] = report.exit_status();
  j["checks"] = nlohmann::ordered_json::array();
  for (const auto& r : report.results) {
    // A fatal call has no margin to report (its fraction is infinite): null, which JSON can carry.
    const auto first_failure = std::isfinite(r.first_failure_fraction) ? nlohmann::ordered_json(r.first_failure_fraction) : nlohmann::ordered_json(nullptr);
    j["checks"].push_back({{"check", r.check}, {"spec", r.spec}, {"layout", r.layout.empty() ? "contiguous" : r.layout}, {"result", verdict_name(r.result)}, {"cases", r.cases},
                           {"planned_cases", r.planned}, {"unsupported_calls", r.unsupported},
                           {"never_answered", r.never_answered}, {"declined_ops", r.declined_ops}, {"accepted_partial", r.accepted}, {"worst_ulps", r.worst_ulps}, {"worst_fraction_of_bound", r.worst_fraction},
                           {"first_failure_fraction_of_bound", first_failure}, {"worst", r.worst_where},
                           {"detail", r.detail}, {"reproduce", r.reproduce}});
    if (!r.diagnose.empty()) j["checks"].back()["diagnose"] = r.diagnose;
    // The minimal case whole, each input or draw by name: the text report shows it short.
    if (!r.minimal_case.empty()) {
      auto& c = j["checks"].back()["minimal_case"] = nlohmann::ordered_json::array();
      for (const auto& [name, value] : r.minimal_case) c.push_back({{"name", name}, {"value", value}});
    }
  }
  j["unchecked"] = report.unchecked;
  j["notes"] = report.notes;
  j["sandbox"] = {{"mode", report.sandbox.mode}, {"on", report.sandbox.on}, {"off", report.sandbox.off}};
  return j.dump(2) + "\n";
}

}  // namespace pe::gate
