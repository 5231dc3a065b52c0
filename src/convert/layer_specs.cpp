// Layer kinds to specs: built through the registry, equal specs of a stack merged, each with the comment naming its layers.
#include "convert/layer_specs.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "convert/layer_ranges.hpp"
#include "convert/spec_of_encoding.hpp"
#include "pe/error.hpp"
#include "pe/scheme.hpp"

namespace pe::convert {
namespace {

std::int64_t stack_size(const model_positions& model, const std::string& stack) {
  for (const auto& s : model.stacks)
    if (s.name == stack) return s.layers;
  return 0;
}

pe::spec spec_of(const layer_kind& kind) {
  const auto twin = spec_json_of(kind.encoding, kind.source);
  try {
    return pe::parse_spec_json(twin);
  } catch (const pe::spec_error& e) {
    throw input_error(fmt::format("{}: {}", kind.source, e.what()));
  }
}

void append_unique(std::vector<std::string>& to, const std::vector<std::string>& from) {
  for (const auto& x : from)
    if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
}

// "all 32 layers" or "layers 0-4, 6-10 (sliding_attention, 5 of every 6)"; the stack's name first.
std::string comment_of(const layer_spec& entry, const std::vector<std::string>& names, std::int64_t count, bool positionless) {
  const bool all = static_cast<std::int64_t>(entry.layers.size()) == count;
  std::string text = entry.stack.empty() ? std::string() : entry.stack + ": ";
  if (all) text += fmt::format("all {} layer{}", count, count == 1 ? "" : "s");
  else text += fmt::format("layer{} {}", entry.layers.size() == 1 ? "" : "s", ranges_text(entry.layers));
  std::vector<std::string> parts;
  // Kinds merged over a whole stack differ in something other than positions (sliding windows):
  // their names would mislead.
  if (!all || names.size() == 1) {
    std::vector<std::string> named;
    // A type name is the config's text: one short line in the comment whatever it holds.
    for (const auto& n : names)
      if (!n.empty()) named.push_back(pe::one_line(pe::excerpt(n)));
    if (!named.empty()) parts.push_back(fmt::format("{}", fmt::join(named, " and ")));
  }
  if (!all)
    if (const auto p = period_of(entry.layers, count)) parts.push_back(fmt::format("{} of every {}", p->in_each, p->period));
  if (positionless) parts.push_back("no positional encoding");
  if (!parts.empty()) text += fmt::format(" ({})", fmt::join(parts, ", "));
  return text;
}

}  // namespace

std::vector<layer_spec> layer_specs(const model_positions& model) {
  struct pending {
    layer_spec entry;
    std::vector<std::string> names;
    std::unordered_set<std::string> named;  // names' members: a config may give each layer its own type
  };
  std::vector<pending> out;
  for (const auto& stack : model.stacks) {
    std::vector<pending> here;
    // Entries by canonical spec text: one lookup per kind, never a scan of the entries so far.
    std::unordered_map<std::string, std::size_t> by_text;
    for (const auto& kind : model.kinds) {
      if (kind.stack != stack.name || kind.layers.empty()) continue;
      pe::spec s = spec_of(kind);
      const auto [at, added] = by_text.try_emplace(s.text(), here.size());
      if (added) {
        // A kind without position is one whose scheme adds nothing (NoPE): the registry says so.
        const bool positionless = pe::kind_of(s) == pe::scheme_kind::plain;
        here.push_back({layer_spec{stack.name, {}, {}, {}, std::move(s), !positionless}, {}, {}});
      }
      pending& same = here[at->second];
      same.entry.layers.insert(same.entry.layers.end(), kind.layers.begin(), kind.layers.end());
      if (same.named.insert(kind.name).second) same.names.push_back(kind.name);
      append_unique(same.entry.notes, kind.notes);
    }
    for (auto& p : here) std::sort(p.entry.layers.begin(), p.entry.layers.end());
    std::stable_sort(here.begin(), here.end(), [](const pending& a, const pending& b) { return a.entry.layers.front() < b.entry.layers.front(); });
    for (auto& p : here) {
      p.entry.comment = comment_of(p.entry, p.names, stack_size(model, stack.name), !p.entry.has_position);
      out.push_back(std::move(p));
    }
  }
  std::vector<layer_spec> specs;
  for (auto& p : out) specs.push_back(std::move(p.entry));
  return specs;
}

specs_to_check checked_specs(const std::vector<layer_spec>& specs) {
  specs_to_check out;
  std::unordered_set<std::string> seen;
  for (const auto& s : specs) {
    if (!s.has_position) {
      out.lines.push_back(fmt::format("{}: no positional encoding, nothing to check", s.comment));
      continue;
    }
    const std::string text = s.spec.text();
    out.lines.push_back(fmt::format("{}: {}", s.comment, text));
    // T5's encoder and decoder of one config may share a spec: checked once.
    if (seen.insert(text).second) out.specs.push_back(text);
  }
  return out;
}

std::string specs_text(const std::vector<layer_spec>& specs) {
  std::string out;
  for (const auto& s : specs) {
    if (!out.empty()) out += "\n";
    out += fmt::format("# {}\n", s.comment);
    for (const auto& n : s.notes) out += fmt::format("#   {}\n", n);
    out += s.spec.text() + "\n";
  }
  return out;
}

nlohmann::ordered_json specs_json(const std::vector<layer_spec>& specs) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& s : specs) {
    out.push_back(nlohmann::ordered_json{
        {"stack", s.stack}, {"layers", s.layers}, {"comment", s.comment}, {"notes", s.notes}, {"spec", s.spec.json()}});
  }
  return out;
}

}  // namespace pe::convert
