// The property registry: every family's laws, in the order `pecheck check` shows them.
#include "properties/property.hpp"
#include "properties/targets.hpp"

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

const std::vector<std::string>& positional_schemes() {
  static const std::vector<std::string> names = {"integer", "normalized", "binary", "learned", "sinusoidal", "rope", "rope_nd",
                                                 "mrope",   "alibi",      "t5",     "shaw",    "txl",        "deberta"};
  return names;
}

const std::vector<std::string>& absolute_schemes() {
  static const std::vector<std::string> names = {"integer", "normalized", "binary", "learned", "sinusoidal"};
  return names;
}

const std::vector<property>& properties() {
  static const std::vector<property> all = [] {
    std::vector<property> out;
    add_attention_properties(out);
    add_absolute_properties(out);
    add_sinusoidal_properties(out);
    add_rope_properties(out);
    add_rope_axes_properties(out);
    add_scaling_properties(out);
    add_relative_properties(out);
    return out;
  }();
  return all;
}

}  // namespace pe::props
