// Gate baselines written and compared (see gate_baseline.hpp).
#include "gate/gate_baseline.hpp"

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "gate/run.hpp"
#include "pe/error.hpp"

namespace pe::gate {
namespace {

// table_dtype came later: a baseline without it was saved with tables in its own dtype.
const char* const matched_keys[] = {"dtype", "working", "tolerance", "table_dtype"};
std::string setup_value(const gate_report& r, const std::string& key) {
  if (key == "dtype") return r.dtype;
  if (key == "working") return r.working;
  if (key == "table_dtype") return r.table_dtype;
  return r.tolerance;
}

struct check_line {
  std::string verdict;
  double fraction = 0;
};

}  // namespace

std::string gate_baseline_text(const gate_report& report) {
  std::string out = std::string(gate_baseline_header) + "\n";
  for (const char* key : matched_keys) out += fmt::format("{} {}\n", key, setup_value(report, key));
  out += fmt::format("implementation {}\n# check VERDICT WORST_FRACTION CHECK SPEC\n", report.implementation);
  for (const auto& r : report.results) out += fmt::format("check {} {} {} {}\n", verdict_name(r.result), baseline_number(r.worst_fraction), r.check, r.spec_and_layout());
  return out;
}

baseline_verdict compare_gate_baseline(const gate_report& report, const std::string& path, double factor) {
  std::map<std::string, std::string> values;
  std::vector<std::pair<std::string, check_line>> checks;  // "CHECK SPEC", in file order
  for (const auto& l : read_baseline(path, gate_baseline_header)) {
    if (l.key != "check") {
      values[l.key] = l.rest;
      continue;
    }
    std::istringstream in(l.rest);
    check_line c;
    std::string fraction, check;
    in >> c.verdict >> fraction >> check;
    std::string spec;
    std::getline(in >> std::ws, spec);
    if (check.empty() || spec.empty()) throw input_error(fmt::format("--baseline '{}' line {}: a check line is 'check VERDICT FRACTION CHECK SPEC'", path, l.line));
    c.fraction = baseline_number_of(fraction, path, l.line);
    checks.emplace_back(check + " " + spec, c);
  }
  if (!values.contains("table_dtype") && values.contains("dtype")) values["table_dtype"] = values["dtype"];
  for (const char* key : matched_keys) {
    const auto it = values.find(key);
    if (it == values.end()) throw input_error(fmt::format("--baseline '{}': no '{}' line", path, key));
    if (it->second != setup_value(report, key)) {
      throw input_error(fmt::format("--baseline '{}' is for {} {}; this run's is {}", path, key, it->second, setup_value(report, key)));
    }
  }
  std::map<std::string, const check_result*> current;
  for (const auto& r : report.results) current[r.check + " " + r.spec_and_layout()] = &r;
  baseline_verdict v;
  constexpr double floor_fraction = 0.1;
  for (const auto& [label, before] : checks) {
    const auto it = current.find(label);
    if (it == current.end()) {
      v.regression(fmt::format("{}: not run (it was {})", label, before.verdict));
      continue;
    }
    const std::string now(verdict_name(it->second->result));
    // A check the baseline did not judge (UNSUPPORTED, INCOMPLETE, ...) has no measured worst: its 0
    // is no value to grow from. Judged now, it is newly checked (a FAIL fails the run by itself).
    const auto judged = [](const std::string& verdict) { return verdict == "PASS" || verdict == "FAIL"; };
    if (!judged(before.verdict)) {
      if (judged(now)) v.improvement(fmt::format("{}: {} -> {}, newly checked", label, before.verdict, now));
      continue;
    }
    if (before.verdict == "PASS" && now != "PASS") v.regression(fmt::format("{}: PASS -> {}", label, now));
    else if (gate::grew_past(before.fraction, it->second->worst_fraction, factor, floor_fraction)) {
      v.regression(fmt::format("{}: worst {} -> {} of its bound", label, baseline_number(before.fraction), baseline_number(it->second->worst_fraction)));
    } else if (gate::grew_past(it->second->worst_fraction, before.fraction, factor, floor_fraction)) {
      v.improvement(fmt::format("{}: worst {} -> {} of its bound", label, baseline_number(before.fraction), baseline_number(it->second->worst_fraction)));
    }
  }
  return v;
}

}  // namespace pe::gate
