// Exact constants: the expression parser, its canonical text, and correct rounding by Ziv's strategy over MPFR intervals.
#include "pe/exact_number.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <optional>
#include <utility>

#include <boost/multiprecision/gmp.hpp>
#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe {

using rational = boost::multiprecision::mpq_rational;

struct exact_number::node {
  enum kind_t { literal, pi, negate, add, subtract, multiply, divide } kind;
  std::string literal_text;            // a literal as written
  std::optional<rational> exact;       // the exact value of a subtree without pi
  std::shared_ptr<const node> a, b;    // operands (negate: a only)
};

namespace {

using node_ptr = std::shared_ptr<const exact_number::node>;
using kind = exact_number::node::kind_t;

// Literal exponents stay within +-1000 (binary64 spans 1e-324 .. 1e308): the exact rationals
// behind the rounding stay small.
constexpr long max_literal_exponent = 1000;

// Recursive descent over the grammar in exact_number.hpp. Columns in messages count from 1.
class parser {
 public:
  explicit parser(std::string_view s) : s_(s) {}

  node_ptr parse() {
    if (s_.size() > expression_length) fail(fmt::format("is longer than {} characters", expression_length));
    node_ptr r = sum();
    skip_ws();
    if (!at_end()) {
      if (peek() == ')') fail(fmt::format("has an unmatched ')' at column {}", pos_ + 1));
      fail(fmt::format("has '{}' at column {} where an operator belongs", peek(), pos_ + 1));
    }
    return r;
  }

 private:
  [[noreturn]] void fail(std::string_view what) const { throw spec_error(fmt::format("'{}' {}", s_, what)); }
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }
  void skip_ws() {
    while (!at_end() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n')) ++pos_;
  }

  static node_ptr make(kind k, node_ptr a, node_ptr b = nullptr) {
    auto n = std::make_shared<exact_number::node>();
    n->kind = k;
    if (a->exact && (!b || b->exact)) {
      const rational& x = *a->exact;
      switch (k) {
        case kind::negate: n->exact = -x; break;
        case kind::add: n->exact = x + *b->exact; break;
        case kind::subtract: n->exact = x - *b->exact; break;
        case kind::multiply: n->exact = x * *b->exact; break;
        case kind::divide: n->exact = x / *b->exact; break;  // a zero divisor is refused before
        default: break;
      }
    }
    n->a = std::move(a), n->b = std::move(b);
    return n;
  }

  node_ptr sum() {
    node_ptr r = product();
    for (;;) {
      skip_ws();
      const char c = peek();
      if (c != '+' && c != '-') return r;
      ++pos_;
      r = make(c == '+' ? kind::add : kind::subtract, r, product());
    }
  }

  node_ptr product() {
    node_ptr r = unary();
    for (;;) {
      skip_ws();
      const char c = peek();
      if (c != '*' && c != '/') return r;
      const size_t column = ++pos_;
      node_ptr divisor = unary();
      if (c == '/' && divisor->exact && *divisor->exact == 0) fail(fmt::format("divides by zero at column {}", column));
      r = make(c == '*' ? kind::multiply : kind::divide, r, std::move(divisor));
    }
  }

  node_ptr unary() {
    skip_ws();
    if (peek() == '+' || peek() == '-') {
      const bool minus = s_[pos_++] == '-';
      nest();
      node_ptr operand = unary();
      --depth_;
      return minus ? make(kind::negate, std::move(operand)) : operand;
    }
    return primary();
  }

  // Nesting of parentheses and signs, bounded like a spec's (limit depth).
  void nest() {
    if (++depth_ > limit_value(limit::depth)) {
      fail(fmt::format("nests deeper than the limit depth={} at column {} (raise it with --limit depth=N)", limit_value(limit::depth), pos_));
    }
  }

  node_ptr primary() {
    skip_ws();
    if (at_end()) {
      const size_t last = s_.find_last_not_of(" \t\n");
      if (last == std::string_view::npos) fail("is empty");
      fail(fmt::format("ends after '{}'", s_[last]));
    }
    const char c = peek();
    const size_t column = pos_ + 1;
    if (c == '(') {
      ++pos_;
      nest();
      node_ptr inner = sum();
      --depth_;
      skip_ws();
      if (peek() != ')') {
        if (at_end()) fail(fmt::format("has an unclosed '(' at column {}", column));
        fail(fmt::format("has '{}' at column {} where an operator or ')' belongs", peek(), pos_ + 1));
      }
      ++pos_;
      return inner;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const size_t start = pos_;
      while (!at_end() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
      const std::string_view name = s_.substr(start, pos_ - start);
      if (name != "pi") fail(fmt::format("has the unknown name '{}' at column {} (the one constant is pi)", name, column));
      auto n = std::make_shared<exact_number::node>();
      n->kind = kind::pi;
      return n;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return literal();
    fail(fmt::format("has '{}' at column {} where a number, pi or '(' belongs", c, column));
  }

  // digits [. digits] [(e|E) [+|-] digits], at least one digit before the exponent: exact.
  node_ptr literal() {
    const size_t start = pos_;
    std::string digits;
    long exponent = 0;
    while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) digits += s_[pos_++];
    if (peek() == '.') {
      ++pos_;
      while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) digits += s_[pos_++], --exponent;
    }
    if (digits.empty()) fail(fmt::format("has '.' at column {} without digits", start + 1));
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      const bool negative = peek() == '-';
      if (peek() == '-' || peek() == '+') ++pos_;
      const size_t exponent_start = pos_;
      long written = 0;
      while (!at_end() && std::isdigit(static_cast<unsigned char>(peek()))) {
        if (written <= max_literal_exponent) written = written * 10 + (s_[pos_] - '0');
        ++pos_;
      }
      if (pos_ == exponent_start) fail(fmt::format("has a number without exponent digits at column {}", start + 1));
      if (written > max_literal_exponent) {
        fail(fmt::format("has a number at column {} whose exponent is beyond +-{}", start + 1, max_literal_exponent));
      }
      exponent += negative ? -written : written;
    }
    auto n = std::make_shared<exact_number::node>();
    n->kind = kind::literal;
    n->literal_text = std::string(s_.substr(start, pos_ - start));
    // Leading zeros off: GMP reads a string that starts with 0 as octal ("0.010" would be 8/1000,
    // "0.09" an error). The spec fuzz target found it.
    const auto first = digits.find_first_not_of('0');
    digits = first == std::string::npos ? "0" : digits.substr(first);
    const rational mantissa{boost::multiprecision::mpz_int(digits)};
    const rational scale{boost::multiprecision::pow(boost::multiprecision::mpz_int(10), static_cast<unsigned>(std::labs(exponent)))};
    n->exact = exponent >= 0 ? rational(mantissa * scale) : rational(mantissa / scale);
    return n;
  }

  std::string_view s_;
  size_t pos_ = 0;
  long depth_ = 0;
};

// ---- canonical text ----

int precedence(const exact_number::node& n) {
  switch (n.kind) {
    case kind::add:
    case kind::subtract: return 1;
    case kind::multiply:
    case kind::divide: return 2;
    case kind::negate: return 3;
    default: return 4;
  }
}

std::string text_of(const exact_number::node& n);

std::string wrapped(const exact_number::node& n, bool wrap) { return wrap ? "(" + text_of(n) + ")" : text_of(n); }

// The fewest parentheses that read back to the same value: a + (b + c) prints as a+b+c, which
// reads back as (a+b)+c, the same exact number (the arithmetic here never rounds).
std::string text_of(const exact_number::node& n) {
  switch (n.kind) {
    case kind::literal: return n.literal_text;
    case kind::pi: return "pi";
    case kind::negate: return "-" + wrapped(*n.a, precedence(*n.a) < 2 || n.a->kind == kind::negate);
    default: break;
  }
  const int p = precedence(n);
  const char op = n.kind == kind::add ? '+' : n.kind == kind::subtract ? '-' : n.kind == kind::multiply ? '*' : '/';
  const bool inverse = n.kind == kind::subtract || n.kind == kind::divide;
  const int right = precedence(*n.b);
  return wrapped(*n.a, precedence(*n.a) < p) + op + wrapped(*n.b, right < p || (right == p && inverse) || n.b->kind == kind::negate);
}

// ---- enclosures at a given precision ----

mp_real with_bits(mpfr_prec_t bits) {
  mp_real x;
  mpfr_set_prec(x.backend().data(), bits);
  return x;
}

// lo <= the exact value <= hi, each on `bits` bits.
struct enclosure {
  mp_real lo, hi;
};

enclosure rational_enclosure(const rational& q, mpfr_prec_t bits) {
  enclosure e{with_bits(bits), with_bits(bits)};
  mpfr_set_q(e.lo.backend().data(), q.backend().data(), MPFR_RNDD);
  mpfr_set_q(e.hi.backend().data(), q.backend().data(), MPFR_RNDU);
  return e;
}

using mpfr_op = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

// [min, max] of op over the corners of x and y, each rounded outward (products, quotients).
enclosure corners(const enclosure& x, const enclosure& y, mpfr_op op, mpfr_prec_t bits) {
  enclosure e{with_bits(bits), with_bits(bits)};
  mp_real t = with_bits(bits);
  bool first = true;
  for (const mp_real* u : {&x.lo, &x.hi})
    for (const mp_real* v : {&y.lo, &y.hi}) {
      op(t.backend().data(), u->backend().data(), v->backend().data(), MPFR_RNDD);
      if (first || mpfr_less_p(t.backend().data(), e.lo.backend().data())) mpfr_set(e.lo.backend().data(), t.backend().data(), MPFR_RNDN);
      op(t.backend().data(), u->backend().data(), v->backend().data(), MPFR_RNDU);
      if (first || mpfr_greater_p(t.backend().data(), e.hi.backend().data())) mpfr_set(e.hi.backend().data(), t.backend().data(), MPFR_RNDN);
      first = false;
    }
  return e;
}

// The exact value's enclosure at `bits`, or nothing while a divisor's enclosure holds 0.
std::optional<enclosure> enclose(const exact_number::node& n, mpfr_prec_t bits) {
  if (n.exact) return rational_enclosure(*n.exact, bits);
  if (n.kind == kind::pi) {
    enclosure e{with_bits(bits), with_bits(bits)};
    mpfr_const_pi(e.lo.backend().data(), MPFR_RNDD);
    mpfr_const_pi(e.hi.backend().data(), MPFR_RNDU);
    return e;
  }
  const auto x = enclose(*n.a, bits);
  if (!x) return std::nullopt;
  if (n.kind == kind::negate) {
    enclosure e{with_bits(bits), with_bits(bits)};
    mpfr_neg(e.lo.backend().data(), x->hi.backend().data(), MPFR_RNDN);  // exact
    mpfr_neg(e.hi.backend().data(), x->lo.backend().data(), MPFR_RNDN);
    return e;
  }
  const auto y = enclose(*n.b, bits);
  if (!y) return std::nullopt;
  enclosure e{with_bits(bits), with_bits(bits)};
  switch (n.kind) {
    case kind::add:
      mpfr_add(e.lo.backend().data(), x->lo.backend().data(), y->lo.backend().data(), MPFR_RNDD);
      mpfr_add(e.hi.backend().data(), x->hi.backend().data(), y->hi.backend().data(), MPFR_RNDU);
      return e;
    case kind::subtract:
      mpfr_sub(e.lo.backend().data(), x->lo.backend().data(), y->hi.backend().data(), MPFR_RNDD);
      mpfr_sub(e.hi.backend().data(), x->hi.backend().data(), y->lo.backend().data(), MPFR_RNDU);
      return e;
    case kind::multiply: return corners(*x, *y, mpfr_mul, bits);
    case kind::divide:
      if (mpfr_sgn(y->lo.backend().data()) <= 0 && mpfr_sgn(y->hi.backend().data()) >= 0) return std::nullopt;
      return corners(*x, *y, mpfr_div, bits);
    default: throw std::logic_error("exact_number: unknown node");
  }
}

// The most bits Ziv's loop tries. A rational value always decides (a dyadic one becomes exact, any
// other is not a rounding boundary); one with pi is transcendental unless pi cancels (pi/pi), and
// then may sit on a boundary forever: refused at the cap.
constexpr mpfr_prec_t max_rational_bits = mpfr_prec_t{1} << 20;
constexpr mpfr_prec_t max_pi_bits = mpfr_prec_t{1} << 17;

// Ziv's strategy: enclose the value at `start` bits, round both ends; equal roundings are the
// correct rounding, else double the bits.
template <class Round, class Same>
auto decide(const exact_number& x, const exact_number::node& root, mpfr_prec_t start, const Round& round, const Same& same) {
  const mpfr_prec_t cap = std::max(root.exact ? max_rational_bits : max_pi_bits, 8 * start);
  for (mpfr_prec_t bits = start; bits <= cap; bits *= 2) {
    const auto e = enclose(root, bits);
    if (!e) continue;
    auto lo = round(e->lo);
    if (same(lo, round(e->hi))) return lo;
  }
  throw spec_error(fmt::format("'{}' cannot be rounded within {} bits (pi cancels, leaving a rounding boundary or a zero divisor)", x.text(), cap));
}

}  // namespace

exact_number::exact_number(std::shared_ptr<const node> root, std::string text) : root_(std::move(root)), text_(std::move(text)) {}

std::shared_ptr<const exact_number> exact_number::parse(std::string_view text) {
  node_ptr root = parser(text).parse();
  std::string canonical = text_of(*root);
  return std::make_shared<const exact_number>(std::move(root), std::move(canonical));
}

bool exact_number::is_plain_number() const {
  const node* n = root_.get();
  while (n->kind == kind::negate) n = n->a.get();
  return n->kind == kind::literal;
}

double exact_number::nearest_double() const {
  return decide(
      *this, *root_, 128, [](const mp_real& v) { return mpfr_get_d(v.backend().data(), MPFR_RNDN); },
      [](double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); });
}

mp_real exact_number::rounded(unsigned bits) const {
  return decide(
      *this, *root_, static_cast<mpfr_prec_t>(bits) + 64,
      [bits](const mp_real& v) {
        mp_real r = with_bits(static_cast<mpfr_prec_t>(bits));
        mpfr_set(r.backend().data(), v.backend().data(), MPFR_RNDN);
        return r;
      },
      [](const mp_real& a, const mp_real& b) {
        return mpfr_equal_p(a.backend().data(), b.backend().data()) && mpfr_signbit(a.backend().data()) == mpfr_signbit(b.backend().data());
      });
}

std::vector<std::shared_ptr<const exact_number>> item_expressions(const spec& s, std::string_view key) {
  std::vector<std::shared_ptr<const exact_number>> out;
  for (std::size_t i = 0; i < s.reals(key).size(); ++i) out.push_back(s.expression(key, i));
  return out;
}

}  // namespace pe
