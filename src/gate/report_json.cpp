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
  j["tolerance"] = report.tolerance;
  j["checks"] = nlohmann::ordered_json::array();
  for (const auto& r : report.results) {
    // A fatal call has no margin to report (its fraction is infinite): null, which JSON can carry.
    const auto first_failure = std::isfinite(r.first_failure_fraction) ? nlohmann::ordered_json(r.first_failure_fraction) : nlohmann::ordered_json(nullptr);
    j["checks"].push_back({{"check", r.check}, {"spec", r.spec}, {"result", verdict_name(r.result)}, {"cases", r.cases},
                           {"unsupported_calls", r.unsupported}, {"worst_ulps", r.worst_ulps}, {"worst_fraction_of_bound", r.worst_fraction},
                           {"first_failure_fraction_of_bound", first_failure}, {"worst", r.worst_where},
                           {"detail", r.detail}, {"reproduce", r.reproduce}});
  }
  j["notes"] = report.notes;
  return j.dump(2) + "\n";
}

}  // namespace pe::gate
