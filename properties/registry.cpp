// The property registry: every family's laws, in the order `pecheck check` shows them.
#include "properties/property.hpp"
#include "properties/targets.hpp"

#include <algorithm>

#include "pe/scheme.hpp"

namespace pe::props {

std::string_view expectation_name(expectation e) {
  switch (e) {
    case expectation::holds: return "holds";
    case expectation::fails: return "fails";
    case expectation::holds_within: return "holds_within";
  }
  return "?";
}

target fixed_spec(const std::string& text, expectation e) {
  const spec s = parse_spec(text);  // a typo in a fixed target is a programming error: fail at start-up
  return {s.text(), s.scheme(), e, rc::gen::just(s.text())};
}

namespace {

std::vector<std::pair<int, void (*)(std::vector<property>&)>>& families() {
  static std::vector<std::pair<int, void (*)(std::vector<property>&)>> all;
  return all;
}

std::vector<std::string> top_level_schemes(bool (*keep)(const scheme_behaviour&, const scheme_info&)) {
  std::vector<std::string> out;
  for (const pe::scheme_info& info : registry())
    if (info.behaviour && keep(*info.behaviour, info)) out.push_back(info.name);
  return out;
}

}  // namespace

family_registration::family_registration(int order, void (*add)(std::vector<property>&)) { families().emplace_back(order, add); }

const std::vector<std::string>& positional_schemes() {
  static const std::vector<std::string> names = top_level_schemes([](const scheme_behaviour& b, const scheme_info& info) {
    return b.kind != scheme_kind::plain && std::find(info.ops.begin(), info.ops.end(), "attend") != info.ops.end();
  });
  return names;
}

const std::vector<std::string>& absolute_schemes() {
  static const std::vector<std::string> names =
      top_level_schemes([](const scheme_behaviour& b, const scheme_info&) { return b.kind == scheme_kind::absolute; });
  return names;
}

const std::vector<property>& properties() {
  static const std::vector<property> all = [] {
    std::vector<property> out;
    auto ordered = families();
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [order, add] : ordered) add(out);
    return out;
  }();
  return all;
}

}  // namespace pe::props
