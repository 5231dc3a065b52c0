// sin and cos of p * omega in double-double without MPFR: the exact turn reduction, a table and a short series.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "pe/dd.hpp"
#include "pe/fast_kernels.hpp"
#include "pe/mp.hpp"
#include "pe/phase.hpp"

namespace pe {

// x correctly rounded to a double-double: hi = RN(x), lo = RN(x - hi), within 2^-106 relative.
dd to_dd(const mp_real& x);

// The table fast_kernels.hpp describes, built on first use with MPFR at 256 bits (a function-local
// static, so thread-safe); read-only afterwards.
const sin_cos_table& sin_cos_dd_table();

// sin and cos of 2pi frac(p f) (f a turn fraction, phase.hpp): the kernels' sin_cos_turn_rows on a
// row of one (the exact reduction, the table and series, the quarter turns and the sign undone
// exactly). Within 2^-97.5 relative plus 2^-123 absolute of sin and cos of p omega, for every
// |p| < 2^63 (proofs/precision.fast_rotate.md, "sin and cos").
sin_cos_pair sin_cos_turns_dd(std::int64_t p, const turn_fraction& f, const fast_kernels& kernels);

// sin and cos of p[k] omega_k for every k (f[k] omega_k's turn fraction), as rows of double-double
// heads and tails: the same values as sin_cos_turns_dd, a row at a time.
// One object per thread: it holds the rows and their work space.
struct sin_cos_rows {
  std::vector<double> s_hi, s_lo, c_hi, c_lo;
  void compute(std::span<const std::int64_t> p, std::span<const turn_fraction> f, const fast_kernels& kernels);

 private:
  std::vector<double> scratch_;
  std::vector<std::int64_t> quarter_;
};

}  // namespace pe
