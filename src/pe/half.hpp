// Emulated 16-bit storage types bf16 and fp16: bits in, bits out, correct rounding on the way in.
#pragma once
#include <cstdint>

#include "pe/float_format.hpp"

namespace pe {

// A 1 + ExpBits + MantBits = 16-bit IEEE-style storage value. No arithmetic: values are
// produced by rounding a float, double or MPFR value once (round to nearest, ties to even)
// and read back exactly as float or double.
template <int ExpBits, int MantBits>
class small_float {
  static_assert(1 + ExpBits + MantBits == 16);

 public:
  static constexpr int bias = (1 << (ExpBits - 1)) - 1;
  static constexpr float_format format{ExpBits == 8 ? "bf16" : "f16", MantBits + 1, 1 - bias, bias};

  small_float() = default;
  explicit small_float(double x) : bits_(encode(round_to_format(x, format))) {}
  explicit small_float(float x) : small_float(static_cast<double>(x)) {}
  explicit small_float(const mp_real& x) : bits_(encode(round_to_format(x, format))) {}

  static small_float from_bits(std::uint16_t b) {
    small_float v;
    v.bits_ = b;
    return v;
  }
  std::uint16_t bits() const { return bits_; }
  explicit operator double() const { return decode(bits_); }
  explicit operator float() const { return static_cast<float>(decode(bits_)); }

  // The exact value (already representable) as bits; NaN becomes the quiet NaN with its sign.
  static std::uint16_t encode(double exact);
  static double decode(std::uint16_t bits);

 private:
  std::uint16_t bits_ = 0;
};

using bf16 = small_float<8, 7>;
using fp16 = small_float<5, 10>;

static_assert(bf16::format.precision == bfloat16.precision && bf16::format.emin == bfloat16.emin &&
              bf16::format.emax == bfloat16.emax);
static_assert(fp16::format.precision == binary16.precision && fp16::format.emin == binary16.emin &&
              fp16::format.emax == binary16.emax);

extern template class small_float<8, 7>;
extern template class small_float<5, 10>;

}  // namespace pe
