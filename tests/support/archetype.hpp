// An archetype scalar (Boost.Math's real_concept): arithmetic and math functions only, no conversion to double.
#pragma once
#include <cmath>
#include <concepts>
#include <cstdint>

namespace pe_test {

// Code that silently computes in double (double(x), x * 0.5, std::sin(x)) fails to compile
// with this type: construction is explicit, there is no conversion back, mixed arithmetic
// with built-in types does not exist, and math is found only by ADL.
class archetype {
 public:
  archetype() = default;
  explicit archetype(double v) : v_(v) {}
  template <std::integral I>
  explicit archetype(I v) : v_(static_cast<double>(v)) {}

  friend archetype operator+(archetype a, archetype b) { return archetype(a.v_ + b.v_); }
  friend archetype operator-(archetype a, archetype b) { return archetype(a.v_ - b.v_); }
  friend archetype operator*(archetype a, archetype b) { return archetype(a.v_ * b.v_); }
  friend archetype operator/(archetype a, archetype b) { return archetype(a.v_ / b.v_); }
  friend archetype operator-(archetype a) { return archetype(-a.v_); }
  friend bool operator==(archetype a, archetype b) { return a.v_ == b.v_; }
  friend auto operator<=>(archetype a, archetype b) { return a.v_ <=> b.v_; }

  friend archetype sin(archetype a) { return archetype(std::sin(a.v_)); }
  friend archetype cos(archetype a) { return archetype(std::cos(a.v_)); }
  friend archetype pow(archetype a, archetype b) { return archetype(std::pow(a.v_, b.v_)); }
  friend archetype exp(archetype a) { return archetype(std::exp(a.v_)); }
  friend archetype log(archetype a) { return archetype(std::log(a.v_)); }
  friend archetype sqrt(archetype a) { return archetype(std::sqrt(a.v_)); }
  friend archetype abs(archetype a) { return archetype(std::fabs(a.v_)); }
  friend archetype floor(archetype a) { return archetype(std::floor(a.v_)); }
  friend archetype ceil(archetype a) { return archetype(std::ceil(a.v_)); }

  // Only tests read the value, by name.
  double value_for_test() const { return v_; }

 private:
  double v_ = 0;
};

static_assert(!std::is_convertible_v<archetype, double>);
static_assert(!std::is_convertible_v<double, archetype>);

}  // namespace pe_test
