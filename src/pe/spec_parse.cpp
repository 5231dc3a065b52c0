// Spec text and JSON read into the raw tree (see spec_raw.hpp): what was written, before the registry gives it types.
#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/limits.hpp"
#include "pe/spec_raw.hpp"

namespace pe::detail {
namespace {

// ---- the raw tree: what was written, before the registry gives it types ----

// Specs and lists nest at most limit::depth deep (real configurations need 3).
int max_nesting() { return static_cast<int>(limit_value(limit::depth)); }


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
    do {
      std::string key = parse_ident("expected a parameter name");
      expect('=', fmt::format("expected '=' after '{}'", key));
      r.args.emplace_back(std::move(key), parse_value());
    } while (!closed_by(')'));
    return r;
  }

  // After an item of a list or an argument list: false past a ',' (another item follows), true
  // past `close`; anything else is the spec's error.
  bool closed_by(char close) {
    skip_ws();
    const char c = peek();
    if (c != ',' && c != close) fail(fmt::format("expected ',' or '{}'", close));
    ++pos_;
    return c == close;
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
      do {
        r.items.push_back(parse_value());
      } while (!closed_by(']'));
    }
    r.text = std::string(s_.substr(start, pos_ - start));
    return r;
  }

  std::string_view s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

raw_value raw_from_json(const nlohmann::json& j, const std::string& where, int depth);

raw_spec raw_spec_from_json(const nlohmann::json& j, const std::string& where, int depth) {
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

raw_spec parse_raw_text(std::string_view text) { return text_parser(text).parse(); }

}  // namespace pe::detail
