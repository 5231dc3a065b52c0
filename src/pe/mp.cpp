// Precision management and formatting for the MPFR scalar.
#include "pe/mp.hpp"

#include <cmath>

namespace pe {
namespace {

// Global, like Boost's default precision it travels with: MPFR precision scopes are for one
// thread at a time.
unsigned output_bits = 256;

// Boost 1.74's variable-precision backend counts in decimal digits and allocates
// digits10_2_2(d) = floor(1000 d / 301) + 1 or 2 bits; pick the smallest d that covers `bits`.
unsigned digits10_covering(unsigned bits) {
  unsigned d = bits * 301u / 1000u;
  while (boost::multiprecision::detail::digits10_2_2(d) < bits) ++d;
  return d;
}

// New values default to the output precision from the start, not Boost's 50 digits.
const bool default_precision_matches_output = [] {
  mp_real::default_precision(digits10_covering(output_bits));
  return true;
}();

}  // namespace

unsigned mp_output_bits() { return output_bits; }

mp_precision::mp_precision(unsigned bits)
    : saved_bits_(output_bits), saved_digits10_(mp_real::default_precision()) {
  output_bits = bits;
  mp_real::default_precision(digits10_covering(bits));
}

mp_precision::~mp_precision() {
  output_bits = saved_bits_;
  mp_real::default_precision(saved_digits10_);
}

mp_working_bits::mp_working_bits(unsigned bits) : saved_digits10_(mp_real::default_precision()) {
  mp_real::default_precision(digits10_covering(bits));
}

mp_working_bits::~mp_working_bits() { mp_real::default_precision(saved_digits10_); }

mp_real round_to_bits(const mp_real& x, unsigned bits) {
  mp_real r = x;
  mpfr_prec_round(r.backend().data(), static_cast<mpfr_prec_t>(bits), MPFR_RNDN);
  return r;
}

unsigned bits_of(const mp_real& x) {
  return static_cast<unsigned>(mpfr_get_prec(x.backend().data()));
}

std::string to_decimal(const mp_real& x) {
  const unsigned bits = bits_of(x);
  const auto digits = static_cast<std::streamsize>(std::floor((bits - 1) * std::log10(2.0)));
  return x.str(digits, std::ios_base::fmtflags(0));
}

mp_real two_pi() {
  mp_real r;
  mpfr_const_pi(r.backend().data(), MPFR_RNDN);
  mpfr_mul_2ui(r.backend().data(), r.backend().data(), 1, MPFR_RNDN);
  return r;
}

void release_thread_caches() { mpfr_free_cache2(MPFR_FREE_LOCAL_CACHE); }

}  // namespace pe
