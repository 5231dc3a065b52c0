// `pecheck check`: runs every applicable property over every scheme and prints the schemes x properties matrix.
#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "audit/decay_page.hpp"
#include "audit/svg.hpp"
#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "cli/vocabulary.hpp"
#include "pe/error.hpp"
#include "properties/runner.hpp"
#include "properties/targets.hpp"

namespace pecheck {
namespace {

using pe::props::expectation;

struct check_options {
  std::string property = ".*";
  std::string scheme = ".*";
  int cases = 100;
  std::uint64_t seed = pe::props::run_options{}.seed;
  bool ladder = false;
  std::string json, html;
};


// The matrix fits 120 columns: rows are a family's laws under the family's name, columns are
// schemes under a 4-letter heading (a key follows), and a cell is 4 letters at most.
constexpr std::size_t cell_width = 4;

// The cell: what was observed, where an expected failure reads apart from a surprise: "(x)" is a
// law the scheme is known to break, its counterexample found; "!" marks every expectation not met.
std::string cell(const pe::props::target_result& r) {
  std::string text = r.observed == "holds" ? "ok" : r.observed == "fails" ? "x" : "?";
  if (r.observed == "holds_within") text = r.bound.rfind("K* = ", 0) == 0 ? "K" + r.bound.substr(5, r.bound.find(';') - 5) : "~ok";
  if (!r.met) return ("!" + text).substr(0, cell_width);
  return r.observed == "fails" ? "(x)" : text.substr(0, cell_width);
}

// A heading of at most cell_width letters for each scheme, unique among them: its first letters,
// or its first three and its last where those are taken ("rope_nd" after "rope": "ropd").
std::vector<std::string> headings(const std::vector<std::string>& schemes) {
  std::vector<std::string> out;
  for (const auto& name : schemes) {
    std::string h = name.substr(0, cell_width);
    if (std::find(out.begin(), out.end(), h) != out.end()) h = name.substr(0, cell_width - 1) + name.back();
    out.push_back(h);
  }
  return out;
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
  // A row is the law's name under its family's: "  permutation_equivariance" under "attention".
  const auto family = [](const std::string& id) { return id.substr(0, id.find('.')); };
  const auto law = [](const std::string& id) { return id.substr(id.find('.') + 1); };
  size_t law_width = 8;
  for (const auto& id : ids) law_width = std::max(law_width, law(id).size() + 2);
  const auto heads = headings(used);
  std::string out = fmt::format("{:<{}}", "property", law_width);
  for (const auto& h : heads) out += fmt::format(" {:>{}}", h, cell_width);
  out += "\n";
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const auto& id = ids[i];
    if (i == 0 || family(ids[i - 1]) != family(id)) out += family(id) + "\n";
    out += fmt::format("  {:<{}}", law(id), law_width - 2);
    for (const auto& c : used) {
      // Several targets in one cell (random specs and fixed ones): a miss first, then a fixed
      // target's report, then the random one.
      std::string text = ".";
      int rank = -1;
      for (const auto& r : results) {
        if (r.property_id != id || r.scheme != c) continue;
        const int here_rank = !r.met ? 2 : (r.label != r.scheme ? 1 : 0);
        if (here_rank > rank) text = cell(r), rank = here_rank;
      }
      out += fmt::format(" {:>{}}", text, cell_width);
    }
    out += "\n";
  }
  // The key: each heading's scheme, then what a cell says; wrapped as words at 120 columns.
  std::vector<std::string> words;
  for (std::size_t c = 0; c < used.size(); ++c)
    if (heads[c] != used[c]) words.push_back(fmt::format("{}={}", heads[c], used[c]));
  std::istringstream legend(
      "| ok: holds; (x): fails as expected (a known break, its counterexample found); K43: holds within K* = 43; "
      "~ok: holds within its bound; !..: expectation NOT met; .: does not apply");
  for (std::string w; legend >> w;) words.push_back(w);
  std::string line = "key:";
  for (const auto& w : words) {
    if (line.size() + 1 + w.size() > 120) out += line + "\n", line = "    ";
    line += " " + w;
  }
  return out + line + "\n";
}

std::string one_line(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  for (auto& c : s)
    if (c == '\n') c = ';';
  return s;
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
    // Each value by name, long ones shortened; --json has the whole case.
    if (!r.drawn.empty()) out += fmt::format("    minimal case: {}\n", pe::props::case_lines(r.drawn, 18, 6));
    if (!r.failure.empty()) out += fmt::format("    failing case: {}\n", one_line(r.failure));
    // An expected failure replays as well as a surprise: its counterexample is the point.
    if (!r.met || !r.counterexample.empty()) out += fmt::format("    reproduce: {}\n", r.reproduce);
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


// The page: the matrix as the terminal shows it, then RoFormer's decay figure (the scheme's, so
// here and not on an audit's page).
std::string html_page(const std::vector<pe::props::target_result>& results) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>pecheck check</title>\n{}</head>\n<body>\n"
                     "<h1>pecheck check</h1>\n<h2>The schemes x properties matrix</h2>\n<pre>{}</pre>\n{}</body>\n</html>\n",
                     pe::audit::page_style, pe::audit::escaped(matrix_text(results)), pe::audit::decay_section());
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
  cmd->add_option("--scheme", o->scheme, "regex: the targets to run, by scheme name or fixed spec text (default all)");
  add_deprecated_spelling(*cmd, "--spec", "--scheme", o->scheme);
  cmd->add_option("--cases", o->cases, "random cases per target")->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", o->seed, "RapidCheck seed (the default is fixed, so runs repeat)");
  cmd->add_flag("--ladder", o->ladder, "also run the exactness ladder: residuals at 53, 113, 256 and 512 bits");
  cmd->add_option("--json", o->json, "write the results as JSON to FILE");
  cmd->add_option("--html", o->html, "write the matrix and RoFormer's long-term decay figure as one HTML page to FILE");
  return [o] {
    const std::regex property_re = option_regex(o->property, "--property"), scheme_re = option_regex(o->scheme, "--scheme");
    output_files files;
    files.open(o->json, "--json");  // before the run, not after it: a bad path costs nothing
    files.open(o->html, "--html");
    const pe::props::run_options options{o->cases, o->seed};
    const pe::props::reference_backend<double> reference;
    std::vector<pe::props::target_result> results;
    std::vector<pe::props::ladder_result> ladder;
    std::vector<std::pair<const pe::props::property*, const pe::props::target*>> chosen;
    for (const auto& p : pe::props::properties()) {
      if (!std::regex_search(p.id, property_re)) continue;
      for (const auto& t : p.targets)
        if (std::regex_search(t.label, scheme_re) || std::regex_search(t.scheme, scheme_re)) chosen.emplace_back(&p, &t);
    }
    {
      progress_line progress("check", static_cast<std::int64_t>(chosen.size()), "targets");
      for (const auto& [p, t] : chosen) {
        results.push_back(pe::props::run_target(*p, *t, options, reference));
        if (o->ladder) ladder.push_back(pe::props::run_ladder(*p, *t, options));
        progress.update(static_cast<std::int64_t>(results.size()));
      }
    }
    if (results.empty()) throw pe::input_error(fmt::format("no target matches --property '{}' --scheme '{}'", o->property, o->scheme));
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
    files.finish("--html", html_page(results));
    return all_met ? 0 : 1;
  };
}

}  // namespace pecheck
