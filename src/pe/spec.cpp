// Spec parsing (text and JSON), resolution against the registry, validation and canonical printing.
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

namespace pe {
namespace {

// ---- the raw tree: what was written, before the registry gives it types ----

// Specs and lists nest at most limit::depth deep (real configurations need 3).
int max_nesting() { return static_cast<int>(limit_value(limit::depth)); }


struct raw_spec;
struct raw_value {
  enum kind_t { number, word, list, nested } kind;
  std::string text;                    // number or word; the source text otherwise
  std::vector<raw_value> items;        // list
  std::shared_ptr<raw_spec> spec;      // nested
  std::string display;                 // as shown in messages when it differs (a quoted JSON string)
};
struct raw_spec {
  std::string name;
  std::vector<std::pair<std::string, raw_value>> args;
};

class text_parser {
 public:
  explicit text_parser(std::string_view s) : s_(s) {}

  raw_spec parse() {
    skip_ws();
    if (at_end()) throw spec_error("empty spec");
    raw_spec r = parse_spec();
    skip_ws();
    if (!at_end()) fail("expected end of spec");
    return r;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw spec_error(fmt::format("bad spec '{}': {} at column {}", excerpt(s_), what, pos_ + 1));
  }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }
  void expect(char c, std::string_view what) {
    skip_ws();
    if (peek() != c) fail(what);
    ++pos_;
  }
  static bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  std::string parse_ident(std::string_view what) {
    skip_ws();
    if (!ident_start(peek())) fail(what);
    const size_t start = pos_;
    while (!at_end() && ident_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }

  raw_spec parse_spec() {
    raw_spec r;
    r.name = parse_ident("expected a scheme name");
    return parse_args(std::move(r));
  }

  raw_spec parse_args(raw_spec r) {
    expect('(', fmt::format("expected '(' after '{}'", r.name));
    skip_ws();
    if (peek() == ')') {
      ++pos_;
      return r;
    }
    for (;;) {
      std::string key = parse_ident("expected a parameter name");
      expect('=', fmt::format("expected '=' after '{}'", key));
      r.args.emplace_back(std::move(key), parse_value());
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == ')') {
        ++pos_;
        return r;
      }
      fail("expected ',' or ')'");
    }
  }

  raw_value parse_value() {
    // Nested specs and lists recurse: a bound keeps a hostile spec from exhausting the stack.
    if (++depth_ > max_nesting()) fail(fmt::format("nesting deeper than the limit depth={} (raise it with --limit depth=N)", max_nesting()));
    struct leave {
      int& d;
      ~leave() { --d; }
    } guard{depth_};
    skip_ws();
    const char c = peek();
    const size_t start = pos_;
    if (c == '[') return parse_list();
    if (c == '(') return parse_expression(start);
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      raw_value number = parse_number();
      return continues_expression() ? parse_expression(start) : number;
    }
    if (ident_start(c)) {
      std::string w = parse_ident("expected a value");
      skip_ws();
      if (peek() == '(') {
        raw_spec inner;
        inner.name = w;
        auto nested = std::make_shared<raw_spec>(parse_args(std::move(inner)));
        return {raw_value::nested, w + "(...)", {}, nested};
      }
      if (continues_expression()) return parse_expression(start);
      return {raw_value::word, w, {}, nullptr};
    }
    fail("expected a value");
  }

  // An operator after a number or a word makes the value an expression (2*pi, pi/4): text that
  // was a syntax error before; everything that parsed before parses as before.
  bool continues_expression() {
    skip_ws();
    const char c = peek();
    return c == '+' || c == '-' || c == '*' || c == '/';
  }

  // An expression's text, from `start` to the ',', ']' or unmatched ')' that ends it: its grammar
  // is checked when the parameter resolves (exact_number.hpp), where its errors name the parameter.
  raw_value parse_expression(size_t start) {
    pos_ = start;
    int open = 0;
    while (!at_end()) {
      const char c = s_[pos_];
      if (c == ')' && open == 0) break;
      if (c == '(') ++open;
      else if (c == ')') --open;
      else if (!ident_char(c) && std::string_view(".+-*/ \t\n").find(c) == std::string_view::npos) break;
      ++pos_;
    }
    std::string text(s_.substr(start, pos_ - start));
    text.erase(text.find_last_not_of(" \t\n") + 1);
    return {raw_value::number, std::move(text), {}, nullptr};
  }

  raw_value parse_number() {
    const size_t start = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    if (ident_start(peek())) {  // -inf, +nan: let resolution say "is not finite"
      parse_ident("expected a number");
    } else {
      while (!at_end() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.')) ++pos_;
      if (peek() == 'e' || peek() == 'E') {
        ++pos_;
        if (peek() == '-' || peek() == '+') ++pos_;
        while (!at_end() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      }
    }
    return {raw_value::number, std::string(s_.substr(start, pos_ - start)), {}, nullptr};
  }

  raw_value parse_list() {
    const size_t start = pos_;
    ++pos_;  // '['
    raw_value r{raw_value::list, "", {}, nullptr};
    skip_ws();
    if (peek() == ']') {
      ++pos_;
    } else {
      for (;;) {
        r.items.push_back(parse_value());
        skip_ws();
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        if (peek() == ']') {
          ++pos_;
          break;
        }
        fail("expected ',' or ']'");
      }
    }
    r.text = std::string(s_.substr(start, pos_ - start));
    return r;
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

raw_value raw_from_json(const nlohmann::json& j, const std::string& where, int depth);

raw_spec raw_spec_from_json(const nlohmann::json& j, const std::string& where, int depth = 0) {
  if (depth > max_nesting()) throw spec_error(fmt::format("{}: JSON spec nests deeper than the limit depth={} (raise it with --limit depth=N)", where, max_nesting()));
  if (!j.is_object()) throw spec_error(fmt::format("{}: a JSON spec must be an object", where));
  const auto it = j.find("scheme");
  if (it == j.end() || !it->is_string()) {
    throw spec_error(fmt::format("{}: a JSON spec needs \"scheme\": \"<name>\"", where));
  }
  raw_spec r;
  r.name = it->get<std::string>();
  for (const auto& [key, v] : j.items()) {
    if (key != "scheme") r.args.emplace_back(key, raw_from_json(v, r.name, depth + 1));
  }
  return r;
}

raw_value raw_from_json(const nlohmann::json& j, const std::string& where, int depth) {
  if (depth > max_nesting()) throw spec_error(fmt::format("{}: JSON spec nests deeper than the limit depth={} (raise it with --limit depth=N)", where, max_nesting()));
  if (j.is_number()) return {raw_value::number, j.dump(), {}, nullptr};
  if (j.is_string()) return {raw_value::word, j.get<std::string>(), {}, nullptr, j.dump()};
  if (j.is_boolean()) return {raw_value::word, j.get<bool>() ? "true" : "false", {}, nullptr};
  if (j.is_array()) {
    raw_value r{raw_value::list, j.dump(), {}, nullptr};
    for (const auto& item : j) r.items.push_back(raw_from_json(item, where, depth + 1));
    return r;
  }
  if (j.is_object()) {
    auto nested = std::make_shared<raw_spec>(raw_spec_from_json(j, where, depth + 1));
    return {raw_value::nested, nested->name + "(...)", {}, nested};
  }
  throw spec_error(fmt::format("{}: null is not a parameter value", where));
}

// ---- resolution against the registry ----

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

spec resolve(const raw_spec& raw, const std::string& family, const std::string& context);

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

}  // namespace

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

spec parse_spec(std::string_view text) { return resolve(text_parser(text).parse(), "encoding", ""); }

spec parse_spec_json(const nlohmann::json& j) { return resolve(raw_spec_from_json(j, "spec"), "encoding", ""); }

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
