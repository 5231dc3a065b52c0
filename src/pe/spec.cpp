// A spec's values and their canonical printing (text and JSON), and the entry points that read one (spec_parse.cpp,
// spec_resolve.cpp).
#include "pe/spec.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "pe/bounded_json.hpp"
#include "pe/error.hpp"
#include "pe/exact_number.hpp"
#include "pe/limits.hpp"
#include "pe/spec_raw.hpp"

namespace pe {

spec::spec(const scheme_info& info, std::vector<std::pair<std::string, value>> values, std::vector<written_expression> expressions)
    : info_(&info), values_(std::move(values)), expressions_(std::move(expressions)) {}

std::shared_ptr<const exact_number> spec::expression(std::string_view key, std::size_t item) const {
  for (const auto& e : expressions_)
    if (e.key == key && e.item == item) return e.expression;
  return nullptr;
}

bool spec::has(std::string_view key) const {
  return std::any_of(values_.begin(), values_.end(), [&](const auto& kv) { return kv.first == key; });
}

const value& spec::at(std::string_view key) const {
  for (const auto& kv : values_)
    if (kv.first == key) return kv.second;
  throw std::logic_error(fmt::format("{}: no parameter '{}'", scheme(), key));
}

std::int64_t spec::integer(std::string_view key) const { return std::get<std::int64_t>(at(key)); }
double spec::real(std::string_view key) const { return std::get<double>(at(key)); }
bool spec::boolean(std::string_view key) const { return std::get<bool>(at(key)); }
const std::string& spec::choice(std::string_view key) const { return std::get<std::string>(at(key)); }
const real_list& spec::reals(std::string_view key) const { return std::get<real_list>(at(key)); }
const spec& spec::nested(std::string_view key) const { return *std::get<std::shared_ptr<const spec>>(at(key)); }

namespace {
// A real or a real list's item as canonical text: its expression where one was written, else the
// number as value_text prints it.
std::string real_text(const spec& s, const std::string& key, std::size_t item, double x) {
  const auto e = s.expression(key, item);
  return e ? e->text() : fmt::format("{}", x);
}
}  // namespace

std::string spec::text() const {
  std::vector<std::string> parts;
  for (const auto& [key, v] : values_) {
    std::string written;
    if (const auto* x = std::get_if<double>(&v)) {
      written = real_text(*this, key, no_item, *x);
    } else if (const auto* list = std::get_if<real_list>(&v)) {
      std::vector<std::string> items;
      for (std::size_t i = 0; i < list->size(); ++i) items.push_back(real_text(*this, key, i, (*list)[i]));
      written = fmt::format("[{}]", fmt::join(items, ", "));
    } else {
      written = value_text(v);
    }
    parts.push_back(key + "=" + written);
  }
  return fmt::format("{}({})", scheme(), fmt::join(parts, ", "));
}

nlohmann::ordered_json spec::json() const {
  nlohmann::ordered_json j;
  j["scheme"] = scheme();
  for (const auto& [key, v] : values_) {
    std::visit([&, &k = key](const auto& x) {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, std::shared_ptr<const spec>>) {
        j[k] = x->json();
      } else if constexpr (std::is_same_v<X, double>) {  // an expression as its text: "base": "1e4*pi"
        if (const auto e = expression(k)) j[k] = e->text();
        else j[k] = x;
      } else if constexpr (std::is_same_v<X, real_list>) {  // "freqs": ["pi/4", 0.5]
        j[k] = nlohmann::ordered_json::array();
        for (std::size_t i = 0; i < x.size(); ++i) {
          if (const auto e = expression(k, i)) j[k].push_back(e->text());
          else j[k].push_back(x[i]);
        }
      } else {
        j[k] = x;
      }
    }, v);
  }
  return j;
}

spec parse_spec(std::string_view text) { return detail::resolve(detail::parse_raw_text(text), "encoding", ""); }

spec parse_spec_json(const nlohmann::json& j) { return detail::resolve(detail::raw_spec_from_json(j, "spec"), "encoding", ""); }

namespace {
spec parse_spec_any_within_limits(std::string_view text) {
  check_limit(limit::spec_length, text.size(), "spec: length");
  const auto first = text.find_first_not_of(" \t\n");
  if (first != std::string_view::npos && text[first] == '{') {
    // JSON objects keep the last of repeated keys; the text form rejects them, so does this.
    const json_scan scan = scan_json(text, "spec");
    if (!scan.valid) throw spec_error(fmt::format("bad spec: '{}' is not valid JSON", excerpt(text)));
    if (!scan.repeated_key.empty()) throw spec_error(fmt::format("bad spec: JSON key '{}' is given twice", scan.repeated_key));
    const nlohmann::json j = nlohmann::json::parse(text);
    return parse_spec_json(j);
  }
  return parse_spec(text);
}

}  // namespace

// A spec over a limit (length, JSON depth) is a bad spec: callers that catch spec_error see it.
spec parse_spec_any(std::string_view text) {
  try {
    return parse_spec_any_within_limits(text);
  } catch (const limit_error& e) {
    throw spec_error(e.what());
  }
}

}  // namespace pe
