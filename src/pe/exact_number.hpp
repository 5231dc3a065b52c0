// Exact constants in specs: expressions of decimals, pi, + - * / and parentheses, correctly rounded to any precision.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "pe/mp.hpp"
#include "pe/spec.hpp"

namespace pe {

// The longest expression one parameter may hold: real constants need a few operators
// (3/(2*pi)); the bound keeps the exact arithmetic behind the rounding small.
inline constexpr std::size_t expression_length = 256;

// A real number written as an expression. Grammar:
//   expr := term (('+' | '-') term)*      term := unary (('*' | '/') unary)*
//   unary := ('-' | '+') unary | primary  primary := decimal | 'pi' | '(' expr ')'
// decimal: digits with an optional '.' and exponent (1e4, .5, 2.5E-3), read exactly (|exponent|
// <= 1000). Its value is the exact real number; nearest_double and rounded give its correct
// rounding (ties to even), decided by Ziv's strategy (proofs/exact_constants.md).
class exact_number {
 public:
  struct node;
  // Throws spec_error "'<text>' <what is wrong>" naming the column (the caller adds where it was
  // written): a grammar error, an unknown name, a division by zero, a length or nesting limit.
  static std::shared_ptr<const exact_number> parse(std::string_view text);

  // Canonical text: no spaces, the fewest parentheses, decimals as written.
  const std::string& text() const { return text_; }
  // A lone decimal under signs and parentheses ((0.5), -2e3): the spec reads it as the plain
  // number it is (binary64), like any number written without an expression.
  bool is_plain_number() const;
  // The double nearest the exact value (ties to even; subnormals and overflow to infinity as IEEE
  // 754 round to nearest does).
  double nearest_double() const;
  // The exact value rounded to nearest (ties to even) with `bits` bits of precision.
  mp_real rounded(unsigned bits) const;
  // The exact value at the precision new mp_real values have now (mp_precision, mp_working_bits).
  mp_real value() const { return rounded(bits_of(mp_real())); }

  exact_number(std::shared_ptr<const node> root, std::string text);

 private:
  std::shared_ptr<const node> root_;
  std::string text_;
};

// A real parameter in U given its expression (or null) and its correctly rounded double: the
// exact value at the current precision for mp_real, the double converted to U otherwise (binary
// formats read the parameter as a binary64 implementation does).
template <class U>
U exact_or(const std::shared_ptr<const exact_number>& e, double rounded) {
  if constexpr (std::is_same_v<U, mp_real>) {
    if (e) return e->value();
  }
  return U(rounded);
}

// spec.real(key) in U, exact at MPFR precision where the spec wrote an expression.
template <class U>
U real_as(const spec& s, std::string_view key) {
  return exact_or<U>(s.expression(key), s.real(key));
}

// Item i of spec.reals(key) in U, exact at MPFR precision where the spec wrote an expression.
template <class U>
U real_item_as(const spec& s, std::string_view key, std::size_t i) {
  return exact_or<U>(s.expression(key, i), s.reals(key).at(i));
}

// spec.reals(key) in U, each item as real_item_as gives it.
template <class U>
std::vector<U> reals_as(const spec& s, std::string_view key) {
  std::vector<U> out;
  for (std::size_t i = 0; i < s.reals(key).size(); ++i) out.push_back(real_item_as<U>(s, key, i));
  return out;
}

// The expressions of every item of real list `key` (null for plain numbers), for laws that keep
// them past the spec's lifetime.
std::vector<std::shared_ptr<const exact_number>> item_expressions(const spec& s, std::string_view key);

}  // namespace pe
