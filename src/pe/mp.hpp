// The multiprecision scalar: Boost.Multiprecision over MPFR, with run-time precision in bits.
#pragma once
#include <boost/multiprecision/mpfr.hpp>
#include <string>

namespace pe {

// Variable-precision MPFR number. Expression templates are off so that generic code
// (auto, Eigen) sees plain values. Trig goes through MPFR (mpfr_sin, ...), never through
// cpp_bin_float, whose sin loses ~30 bits near |x| = 1e6 in Boost 1.74 (Boost.Multiprecision
// issues 262/264, fixed in 1.75); tests/pe/mp_test.cpp pins that down.
using mp_real = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<0>,
                                              boost::multiprecision::et_off>;

// The precision results are delivered at, in bits (256 unless a scope says otherwise). Like
// Boost's default precision it is process-wide: use precision scopes from one thread at a time.
unsigned mp_output_bits();

// Sets the output precision for its lifetime and makes new mp_real values at least that wide.
class mp_precision {
 public:
  explicit mp_precision(unsigned bits);
  ~mp_precision();
  mp_precision(const mp_precision&) = delete;
  mp_precision& operator=(const mp_precision&) = delete;

 private:
  unsigned saved_bits_;
  unsigned saved_digits10_;
};

// Raises the working precision of new mp_real values (guard bits) for its lifetime, without
// changing the output precision.
class mp_working_bits {
 public:
  explicit mp_working_bits(unsigned bits);
  ~mp_working_bits();
  mp_working_bits(const mp_working_bits&) = delete;
  mp_working_bits& operator=(const mp_working_bits&) = delete;

 private:
  unsigned saved_digits10_;
};

// x correctly rounded (to nearest, ties to even) to exactly `bits` bits of precision.
mp_real round_to_bits(const mp_real& x, unsigned bits);

// The precision of x in bits.
unsigned bits_of(const mp_real& x);

// x as a decimal string with the digits its precision supports: floor((bits-1)*log10 2)
// significant digits, so every printed digit is meaningful.
std::string to_decimal(const mp_real& x);

// Frees the calling thread's MPFR caches (pi, log 2, ... are cached per thread). Every thread
// pecheck starts calls it before it ends: otherwise each one leaks them (LeakSanitizer found 152
// bytes in 3 blocks per finished thread).
void release_thread_caches();

// 2*pi at the current working precision (MPFR's constant, correctly rounded).
mp_real two_pi();

}  // namespace pe
