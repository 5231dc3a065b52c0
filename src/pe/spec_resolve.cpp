// A spec's raw tree resolved against the registry (see spec_raw.hpp): names and keys looked up (with a suggestion for
// a near miss), values read as their parameter's kind, checked, defaulted and completed.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "pe/error.hpp"
#include "pe/exact_number.hpp"
#include "pe/limits.hpp"
#include "pe/spec_raw.hpp"

namespace pe::detail {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// " (did you mean 'x'?)" for the closest candidate within a third of the word's length (at least 2).
std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string* best = nullptr;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = &c;
  }
  return best ? fmt::format(" (did you mean '{}'?)", *best) : std::string();
}

// The integer a decimal number denotes exactly ("4", "-12", "4.0", "1e3", "2.50e1"), or
// nothing when it has a non-zero fractional part ("4.0000000000000001") or does not fit int64.
std::optional<std::int64_t> exact_integer(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) negative = text[0] == '-', text.remove_prefix(1);
  const size_t e = text.find_first_of("eE");
  const std::string_view mantissa = text.substr(0, e);
  long exponent = 0;
  if (e != std::string_view::npos) {
    const std::string_view ex = text.substr(e + 1);
    const auto [end, ec] = std::from_chars(ex.data() + (!ex.empty() && ex[0] == '+'), ex.data() + ex.size(), exponent);
    if (ec != std::errc() || end != ex.data() + ex.size() || std::labs(exponent) > 1000) return std::nullopt;
  }
  const size_t dot = mantissa.find('.');
  std::string digits(mantissa.substr(0, dot));
  if (dot != std::string_view::npos) {
    const std::string_view frac = mantissa.substr(dot + 1);
    digits += frac;
    exponent -= static_cast<long>(frac.size());
  }
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  while (exponent < 0 && digits.size() > 1 && digits.back() == '0') digits.pop_back(), ++exponent;
  if (exponent < 0) {
    if (digits.find_first_not_of('0') != std::string::npos) return std::nullopt;  // a real fraction
    return 0;
  }
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
  if (digits.size() + static_cast<size_t>(exponent) > 19) return std::nullopt;
  digits.append(static_cast<size_t>(exponent), '0');
  std::uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : (std::uint64_t{1} << 63) - 1;
  if (magnitude > limit) return std::nullopt;
  return negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
}

std::optional<double> as_double(const raw_value& v) {
  if (v.kind == raw_value::word) {
    if (v.text == "nan" || v.text == "inf") return std::strtod(v.text.c_str(), nullptr);
    return std::nullopt;
  }
  if (v.kind != raw_value::number) return std::nullopt;
  char* end = nullptr;
  const double d = std::strtod(v.text.c_str(), &end);
  if (end != v.text.c_str() + v.text.size() || v.text.empty()) return std::nullopt;
  return d;
}

// A real as a spec holds it: its correctly rounded double and, where an expression was written,
// the expression.
struct real_reading {
  double rounded;
  std::shared_ptr<const exact_number> expression;
};

// Text read as an expression rather than "not a number": pi, or anything with a digit, an
// operator or a parenthesis (a bare word such as abc keeps its old message).
bool reads_as_expression(const raw_value& v) {
  return (v.kind == raw_value::number || v.kind == raw_value::word) &&
         (v.text == "pi" || v.text.find_first_of("0123456789.+-*/()") != std::string::npos);
}

// A plain number as before (the double nearest its text), else an expression: its errors are one
// line naming the parameter ("rope: freqs[0]: 'pi/' ends after '/'").
std::optional<real_reading> read_real(const raw_value& v, const std::string& what) {
  if (const auto d = as_double(v)) return real_reading{*d, nullptr};
  if (!reads_as_expression(v)) return std::nullopt;
  try {
    auto e = exact_number::parse(v.text);
    const double rounded = e->nearest_double();
    if (e->is_plain_number()) return real_reading{rounded, nullptr};
    return real_reading{rounded, std::move(e)};
  } catch (const spec_error& err) {
    throw spec_error(fmt::format("{}: {}", what, err.what()));
  }
}

value resolve_value(const param_info& p, const raw_value& v, const std::string& where,
                    std::vector<spec::written_expression>& expressions) {
  auto bad = [&](std::string_view why) {
    return spec_error(fmt::format("{}: {}={} {}", where, p.name, v.display.empty() ? v.text : v.display, why));
  };
  switch (p.kind) {
    case param_kind::integer: {
      if (v.kind == raw_value::number) {
        if (const auto i = exact_integer(v.text)) return *i;
      }
      const auto d = as_double(v);
      if (!d) throw bad("is not an integer");
      if (!std::isfinite(*d)) throw bad("is not finite");
      if (*d == std::trunc(*d) && std::fabs(*d) >= 0x1p63) throw bad("does not fit in 64 bits");
      throw bad("is not an integer");
    }
    case param_kind::real: {
      const auto r = read_real(v, fmt::format("{}: {}", where, p.name));
      if (!r) throw bad("is not a number");
      if (!std::isfinite(r->rounded)) throw bad("is not finite");
      if (r->expression) expressions.push_back({p.name, spec::no_item, r->expression});
      return r->rounded;
    }
    case param_kind::boolean:
      if (v.kind == raw_value::word && (v.text == "true" || v.text == "false")) return v.text == "true";
      throw bad("is not true or false");
    case param_kind::choice:
      if (v.kind == raw_value::word && std::find(p.choices.begin(), p.choices.end(), v.text) != p.choices.end()) {
        return v.text;
      }
      throw bad(fmt::format("is not one of {}{}", fmt::join(p.choices, ", "), suggestion(v.text, p.choices)));
    case param_kind::real_list: {
      if (v.kind != raw_value::list) throw bad("is not a list like [1, 2.5]");
      real_list out;
      for (const auto& item : v.items) {
        const auto r = read_real(item, fmt::format("{}: {}[{}]", where, p.name, out.size()));
        if (!r) throw bad(fmt::format("has '{}', which is not a number", item.text));
        if (!std::isfinite(r->rounded)) throw bad(fmt::format("has {}, which is not finite", item.text));
        if (r->expression) expressions.push_back({p.name, out.size(), r->expression});
        out.push_back(r->rounded);
      }
      return out;
    }
    case param_kind::scheme: {
      if (v.kind == raw_value::nested) return std::make_shared<const spec>(resolve(*v.spec, p.family, where + ": " + p.name));
      if (v.kind == raw_value::word) {
        return std::make_shared<const spec>(resolve(raw_spec{v.text, {}}, p.family, where + ": " + p.name));
      }
      throw bad(fmt::format("is not a {} scheme", p.family));
    }
  }
  throw bad("has an unknown kind");
}

}  // namespace

spec resolve(const raw_spec& raw, const std::string& family, const std::string& context) {
  const scheme_info* info = find_scheme(raw.name);
  std::vector<std::string> names;
  for (const pe::scheme_info& s : registry())
    if (s.family == family) names.push_back(s.name);
  const std::string prefix = context.empty() ? "" : context + ": ";
  if (!info || info->family != family) {
    const std::string what = family == "encoding" ? "scheme" : family + " scheme";
    throw spec_error(fmt::format("{}unknown {} '{}'{}", prefix, what, raw.name, suggestion(raw.name, names)));
  }
  const std::string where = prefix + info->name;
  std::vector<std::string> keys;
  for (const auto& p : info->params) keys.push_back(p.name);
  for (size_t i = 0; i < raw.args.size(); ++i) {
    const auto& key = raw.args[i].first;
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      const std::string known = keys.empty() ? "it takes no parameters" : fmt::format("known: {}", fmt::join(keys, ", "));
      const std::string hint = suggestion(key, keys);
      throw spec_error(hint.empty() ? fmt::format("{}: unknown key '{}' ({})", where, key, known)
                                    : fmt::format("{}: unknown key '{}'{}", where, key, hint));
    }
    for (size_t j = 0; j < i; ++j)
      if (raw.args[j].first == key) throw spec_error(fmt::format("{}: key '{}' given twice", where, key));
  }
  std::vector<std::pair<std::string, value>> values;
  std::vector<spec::written_expression> expressions;
  for (const auto& p : info->params) {
    const auto it = std::find_if(raw.args.begin(), raw.args.end(), [&](const auto& a) { return a.first == p.name; });
    if (it == raw.args.end()) {
      if (p.default_value) values.emplace_back(p.name, *p.default_value);
      else if (!p.optional) throw spec_error(fmt::format("{}: {} is required ({})", where, p.name, p.doc));
      continue;
    }
    value v = resolve_value(p, it->second, where, expressions);
    if (p.check) {
      const std::string why = p.check(v);
      // The value as written: "base=1e-400 must be > 1", not the "0" it became.
      const raw_value& raw_v = it->second;
      if (!why.empty()) {
        throw spec_error(fmt::format("{}: {}={} {}", where, p.name, raw_v.display.empty() ? raw_v.text : raw_v.display, why));
      }
    }
    values.emplace_back(p.name, std::move(v));
  }
  if (info->complete) info->complete(values);
  spec s(*info, std::move(values), std::move(expressions));
  if (info->validate) info->validate(s);
  return s;
}

}  // namespace pe::detail
