// The fast path's MPFR-built parts: its sin/cos table and rounding to double-double; and sin and cos of p omega through the kernels (proofs/precision.fast_rotate.md).
#include "pe/sin_cos_dd.hpp"

#include <mpfr.h>

#include "pe/fast_kernels.hpp"

namespace pe {

const sin_cos_table& sin_cos_dd_table() {
  static const sin_cos_table t = [] {
    sin_cos_table out;
    mp_working_bits scope(256);
    for (int k = 0; k < sin_cos_table::entries; ++k) {
      const mp_real a = mp_real(k) / mp_real(sin_cos_table::grid);
      mp_real s, c;
      mpfr_sin_cos(s.backend().data(), c.backend().data(), a.backend().data(), MPFR_RNDN);
      out.sin_a[k] = to_dd(s);
      out.cos_a[k] = to_dd(c);
    }
    out.minus_sixth = to_dd(mp_real(-1) / mp_real(6));
    out.one_24th = to_dd(mp_real(1) / mp_real(24));
    return out;
  }();
  return t;
}

dd to_dd(const mp_real& x) {
  const double hi = x.convert_to<double>();
  const mp_real rest = x - mp_real(hi);  // exact: x's precision covers hi's bits
  return {hi, rest.convert_to<double>()};
}

sin_cos_pair sin_cos_turns_dd(std::int64_t p, const turn_fraction& f, const fast_kernels& kernels) {
  double s_hi = 0, s_lo = 0, c_hi = 0, c_lo = 0, scratch[7];
  std::int64_t quarter = 0;
  kernels.sin_cos_turn_rows({1, &p, &f, &s_hi, &s_lo, &c_hi, &c_lo, scratch, &quarter}, sin_cos_dd_table());
  return {{s_hi, s_lo}, {c_hi, c_lo}};
}

std::pair<double, double> phase_table<double>::sin_cos(std::int64_t p, int i) const {
  // RN(sin p omega_i) and RN(cos p omega_i) where the kernels prove them, else MPFR's rounded once.
  const fast_kernels& kernels = default_fast_kernels();
  const sin_cos_pair sc = sin_cos_turns_dd(p, turns_[static_cast<size_t>(i)], kernels);
  double sn = 0, cs = 0, certain = 0;
  kernels.round_sin_cos_rows({1, &sc.s.hi, &sc.s.lo, &sc.c.hi, &sc.c.lo, &sn, &cs, &certain});
  if (certain != 0.0) return {sn, cs};
  const auto [s, c] = sin_cos_wide(p, i);
  return {s.convert_to<double>(), c.convert_to<double>()};
}

void sin_cos_rows::compute(std::span<const std::int64_t> p, std::span<const turn_fraction> f, const fast_kernels& kernels) {
  const std::size_t n = p.size();
  for (auto* row : {&s_hi, &s_lo, &c_hi, &c_lo}) row->resize(n);
  scratch_.resize(7 * n);
  quarter_.resize(n);
  kernels.sin_cos_turn_rows({static_cast<std::int64_t>(n), p.data(), f.data(), s_hi.data(), s_lo.data(), c_hi.data(), c_lo.data(), scratch_.data(), quarter_.data()},
                            sin_cos_dd_table());
}

}  // namespace pe
