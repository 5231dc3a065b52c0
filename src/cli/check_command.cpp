// `pecheck check`: runs every applicable property over every scheme and prints the schemes x properties matrix.
#include <cstdio>
#include <regex>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "pe/error.hpp"
#include "properties/runner.hpp"
#include "properties/targets.hpp"

namespace pecheck {
namespace {

using pe::props::expectation;

struct check_options {
  std::string property = ".*";
  std::string spec = ".*";
  int cases = 100;
  std::uint64_t seed = pe::props::run_options{}.seed;
  bool ladder = false;
  std::string json;
};


// The cell of the matrix: what was observed, with '!' where the expectation was not met.
std::string cell(const pe::props::target_result& r) {
  std::string text = r.observed;
  if (r.observed == "holds_within") {
    text = r.bound.rfind("K* = ", 0) == 0 ? r.bound.substr(0, r.bound.find(';')) : "within";
  }
  return r.met ? text : "!" + text;
}

std::string one_line(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  for (auto& c : s)
    if (c == '\n') c = ';';
  return s;
}

std::string matrix_text(const std::vector<pe::props::target_result>& results) {
  // Columns: the schemes with any result, in registry order (none first).
  std::vector<std::string> columns = {"none"};
  for (const auto& n : pe::props::positional_schemes()) columns.push_back(n);
  std::vector<std::string> used;
  for (const auto& c : columns)
    for (const auto& r : results)
      if (r.scheme == c) {
        used.push_back(c);
        break;
      }
  std::vector<std::string> ids;
  for (const auto& r : results)
    if (ids.empty() || ids.back() != r.property_id) ids.push_back(r.property_id);
  size_t id_width = 8;
  for (const auto& id : ids) id_width = std::max(id_width, id.size());
  std::string out = fmt::format("{:<{}}", "property", id_width);
  for (const auto& c : used) out += fmt::format(" {:>11}", c);
  out += "\n";
  for (const auto& id : ids) {
    out += fmt::format("{:<{}}", id, id_width);
    for (const auto& c : used) {
      // Several targets in one cell (random specs and fixed ones): a miss first, then a fixed
      // target's report, then the random one.
      std::string text = "n/a";
      int rank = -1;
      for (const auto& r : results) {
        if (r.property_id != id || r.scheme != c) continue;
        const int here_rank = !r.met ? 2 : (r.label != r.scheme ? 1 : 0);
        if (here_rank > rank) text = cell(r), rank = here_rank;
      }
      out += fmt::format(" {:>11}", text);
    }
    out += "\n";
  }
  return out;
}

std::string details_text(const std::vector<pe::props::target_result>& results) {
  std::string out;
  for (const auto& r : results) {
    out += fmt::format("{} on {}: expected {}, observed {} after {} cases{}\n", r.property_id, r.label,
                       pe::props::expectation_name(r.expected), r.observed, r.cases, r.met ? "" : "  << NOT MET");
    if (!r.bound.empty()) out += fmt::format("    {}\n", r.bound);
    if (!r.classes.empty()) {  // where RC_CLASSIFY says the drawn inputs landed
      std::vector<std::string> parts;
      for (const auto& [tag, count] : r.classes) parts.push_back(fmt::format("{}: {}", tag, count));
      out += fmt::format("    cases by class: {}\n", fmt::join(parts, ", "));
    }
    if (!r.counterexample.empty()) out += fmt::format("    minimal counterexample: {}\n", one_line(r.counterexample));
    if (!r.failure.empty()) out += fmt::format("    failing case: {}\n", one_line(r.failure));
    if (!r.met) out += fmt::format("    reproduce: {}\n", r.reproduce);
  }
  return out;
}

nlohmann::ordered_json results_json(const std::vector<pe::props::target_result>& results,
                                    const std::vector<pe::props::ladder_result>& ladder, const check_options& o) {
  nlohmann::ordered_json j;
  j["format"] = "pecheck-check/1";
  j["seed"] = o.seed;
  j["cases"] = o.cases;
  j["properties"] = nlohmann::ordered_json::array();
  for (const auto& r : results) {
    auto& props = j["properties"];
    if (props.empty() || props.back()["id"] != r.property_id) {
      props.push_back({{"id", r.property_id}, {"statement", r.statement}, {"results", nlohmann::ordered_json::array()}});
    }
    nlohmann::ordered_json e;
    e["spec"] = r.label;
    e["expected"] = pe::props::expectation_name(r.expected);
    e["observed"] = r.observed;
    e["met"] = r.met;
    e["cases"] = r.cases;
    e["counterexample"] = r.counterexample.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.counterexample);
    e["bound"] = r.bound.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.bound);
    e["worst_fraction_of_bound"] = r.worst_fraction;
    e["classes"] = r.classes;
    if (!r.failure.empty()) e["failure"] = r.failure;
    e["reproduce"] = r.reproduce;
    props.back()["results"].push_back(e);
  }
  if (!ladder.empty()) {
    j["ladder"] = nlohmann::ordered_json::array();
    for (const auto& l : ladder) {
      nlohmann::ordered_json e = {{"id", l.property_id}, {"spec", l.label}, {"held_to_ladder", l.held_to_ladder}, {"met", l.met}};
      for (const auto& rung : l.rungs) e["relative_residual"][std::to_string(rung.bits)] = rung.relative_residual;
      if (!l.error.empty()) e["error"] = l.error;
      j["ladder"].push_back(e);
    }
  }
  return j;
}


std::string ladder_text(const std::vector<pe::props::ladder_result>& ladder) {
  std::string out = fmt::format("\nexactness ladder (largest residual / scale over the cases; identities must fall like 2^-p, within 2^{}):\n",
                                pe::props::ladder_slack_bits);
  out += fmt::format("{:<42} {:<28}", "property", "spec");
  for (const unsigned b : pe::props::ladder_bits) out += fmt::format(" {:>10}", fmt::format("{} bits", b));
  out += "\n";
  for (const auto& l : ladder) {
    out += fmt::format("{:<42} {:<28}", l.property_id, l.label.size() > 28 ? l.label.substr(0, 25) + "..." : l.label);
    for (const auto& rung : l.rungs) out += fmt::format(" {:>10.2e}", rung.relative_residual);
    out += l.held_to_ladder ? (l.met ? "  falls" : "  << DOES NOT FALL") : "  (shown, not held)";
    if (!l.error.empty()) out += "  error: " + one_line(l.error);
    out += "\n";
  }
  return out;
}

}  // namespace

std::function<int()> add_check_command(CLI::App& app) {
  auto o = std::make_shared<check_options>();
  auto* cmd = app.add_subcommand("check", "run every law over every scheme: the schemes x properties matrix");
  cmd->add_option("--property", o->property, "regex: the property ids to run (default all)");
  cmd->add_option("--spec", o->spec, "regex: the targets to run, by scheme name or fixed spec text (default all)");
  cmd->add_option("--cases", o->cases, "random cases per target")->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", o->seed, "RapidCheck seed (the default is fixed, so runs repeat)");
  cmd->add_flag("--ladder", o->ladder, "also run the exactness ladder: residuals at 53, 113, 256 and 512 bits");
  cmd->add_option("--json", o->json, "write the results as JSON to FILE");
  return [o] {
    const std::regex property_re = option_regex(o->property, "--property"), spec_re = option_regex(o->spec, "--spec");
    output_files files;
    files.open(o->json, "--json");  // before the run, not after it: a bad path costs nothing
    const pe::props::run_options options{o->cases, o->seed};
    const pe::props::reference_backend<double> reference;
    std::vector<pe::props::target_result> results;
    std::vector<pe::props::ladder_result> ladder;
    for (const auto& p : pe::props::properties()) {
      if (!std::regex_search(p.id, property_re)) continue;
      for (const auto& t : p.targets) {
        if (!std::regex_search(t.label, spec_re) && !std::regex_search(t.scheme, spec_re)) continue;
        results.push_back(pe::props::run_target(p, t, options, reference));
        if (o->ladder) ladder.push_back(pe::props::run_ladder(p, t, options));
      }
    }
    if (results.empty()) throw pe::input_error(fmt::format("no target matches --property '{}' --spec '{}'", o->property, o->spec));
    bool all_met = true;
    for (const auto& r : results) all_met = all_met && r.met;
    for (const auto& l : ladder) all_met = all_met && l.met;
    int met = 0;
    for (const auto& r : results) met += r.met;
    fmt::print("{}\n{}", matrix_text(results), details_text(results));
    if (o->ladder) fmt::print("{}", ladder_text(ladder));
    fmt::print("\n{} of {} expectations met{}\n", met, results.size(), all_met ? "" : "; see << NOT MET above");
    std::fflush(stdout);
    files.finish("--json", results_json(results, ladder, *o).dump(2) + "\n");
    return all_met ? 0 : 1;
  };
}

}  // namespace pecheck
