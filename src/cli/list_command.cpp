// `pecheck list`: every scheme with its parameters (type, default, doc) and ops.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "pe/registry.hpp"

namespace pecheck {
namespace {

const char* kind_name(pe::param_kind k) {
  switch (k) {
    case pe::param_kind::integer: return "integer";
    case pe::param_kind::real: return "real";
    case pe::param_kind::boolean: return "bool";
    case pe::param_kind::choice: return "choice";
    case pe::param_kind::real_list: return "real list";
    case pe::param_kind::scheme: return "scheme";
  }
  return "?";
}

std::string default_text(const pe::param_info& p) {
  if (p.default_value) return "= " + pe::value_text(*p.default_value);
  return p.optional ? "(optional)" : "(required)";
}

std::string scheme_text(const pe::scheme_info& s) {
  std::string out = s.ops.empty() ? fmt::format("{}\n  {}\n", s.name, s.doc)
                                  : fmt::format("{}  [ops: {}]\n  {}\n", s.name, fmt::join(s.ops, ", "), s.doc);
  for (const auto& p : s.params) {
    std::string doc = p.doc;
    if (p.kind == pe::param_kind::choice) doc = fmt::format("{} ({})", doc, fmt::join(p.choices, " | "));
      out += fmt::format("    {:<16} {:<9} {:<14} {}\n", p.name, kind_name(p.kind), default_text(p), doc);
  }
  return out;
}

// Encodings first, then each family of nested schemes (rope's scalings) under its own heading.
std::string list_text() {
  std::string out;
  for (const pe::scheme_info& s : pe::registry())
    if (s.family == "encoding") out += scheme_text(s);
  std::vector<std::string> families;
  for (const pe::scheme_info& s : pe::registry())
    if (s.family != "encoding" && std::find(families.begin(), families.end(), s.family) == families.end())
      families.push_back(s.family);
  for (const auto& family : families) {
    out += fmt::format("\n{} schemes (nested parameters, e.g. rope(scaling=...)):\n", family);
    for (const pe::scheme_info& s : pe::registry())
      if (s.family == family) out += scheme_text(s);
  }
  return out;
}

std::string list_json() {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const pe::scheme_info& s : pe::registry()) {
    nlohmann::ordered_json params = nlohmann::ordered_json::array();
    for (const auto& p : s.params) {
      nlohmann::ordered_json j{{"name", p.name}, {"type", kind_name(p.kind)}, {"doc", p.doc}};
      if (p.default_value) j["default"] = pe::value_text(*p.default_value);
      j["required"] = !p.default_value && !p.optional;
      if (!p.choices.empty()) j["choices"] = p.choices;
      params.push_back(j);
    }
    all.push_back({{"scheme", s.name}, {"family", s.family}, {"doc", s.doc}, {"ops", s.ops}, {"params", params}});
  }
  return all.dump(2) + "\n";
}

}  // namespace

std::function<int()> add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List every scheme with its parameters, defaults and ops");
  auto format = std::make_shared<std::string>("table");
  cmd->add_option("--format", *format, "table or json")->check(CLI::IsMember({"table", "json"}));
  return [format] {
    fmt::print("{}", *format == "json" ? list_json() : list_text());
    return 0;
  };
}

}  // namespace pecheck
