// Spec: the one description of an encoding configuration, as canonical text or its JSON twin.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pe/registry.hpp"

namespace pe {

class exact_number;  // pe/exact_number.hpp: a constant such as pi/4, exact at any precision

// A parsed, validated configuration: a registered scheme with every parameter resolved,
// defaults filled in, in the registry's order. Text form:
//   rope(dim=128, base=500000, layout=neox, scaling=llama3(factor=8, ...))
// Numbers are binary64: a real parameter is the double nearest its text. A real parameter or a
// real list's item may instead be an expression (freqs=[pi/4], base=3/(2*pi)): its value here is
// the expression's correctly rounded double, the spec keeps the expression for its text and JSON,
// and real_as<mp_real> (exact_number.hpp) gives it exactly at MPFR precision.
class spec {
 public:
  // Where an expression was written: a real parameter (item == no_item) or one item of a real list.
  static constexpr std::size_t no_item = static_cast<std::size_t>(-1);
  struct written_expression {
    std::string key;
    std::size_t item = no_item;
    std::shared_ptr<const exact_number> expression;
  };

  spec(const scheme_info& info, std::vector<std::pair<std::string, value>> values,
       std::vector<written_expression> expressions = {});

  const std::string& scheme() const { return info_->name; }
  const scheme_info& info() const { return *info_; }
  bool has(std::string_view key) const;

  std::int64_t integer(std::string_view key) const;
  double real(std::string_view key) const;
  bool boolean(std::string_view key) const;
  const std::string& choice(std::string_view key) const;
  const real_list& reals(std::string_view key) const;
  const spec& nested(std::string_view key) const;
  const std::vector<std::pair<std::string, value>>& values() const { return values_; }
  // The expression written for real parameter `key` (or item `item` of real list `key`), or null
  // where a plain number was written.
  std::shared_ptr<const exact_number> expression(std::string_view key, std::size_t item = no_item) const;

  // Canonical text: every parameter (defaults included) in registry order.
  std::string text() const;
  // The JSON twin: {"scheme": name, key: value, ...} in the same order.
  nlohmann::ordered_json json() const;

  friend bool operator==(const spec& a, const spec& b) { return a.text() == b.text(); }

 private:
  const value& at(std::string_view key) const;
  const scheme_info* info_;
  std::vector<std::pair<std::string, value>> values_;
  std::vector<written_expression> expressions_;
};

// Parse and validate; throws spec_error with a message naming the scheme, field, value
// and reason (or the column of a syntax error).
spec parse_spec(std::string_view text);
spec parse_spec_json(const nlohmann::json& j);

// Parses `text` as JSON when it starts with '{', else as spec text.
spec parse_spec_any(std::string_view text);

}  // namespace pe
