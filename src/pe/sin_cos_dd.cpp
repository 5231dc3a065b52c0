// The fast path's MPFR-built parts: its sin/cos table, rounding to double-double, and the reduction around the kernels (proofs/precision.fast_rotate.md).
#include "pe/sin_cos_dd.hpp"

#include <mpfr.h>

#include <tuple>

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
  const reduced_angle r = reduce_turns(p, f);
  const sin_cos_pair reduced = kernels.sin_cos_of_reduced(r.hi, r.lo, sin_cos_dd_table());
  const auto [s_hi, c_hi] = undo_quarter_turns(reduced.s.hi, reduced.c.hi, r);
  const auto [s_lo, c_lo] = undo_quarter_turns(reduced.s.lo, reduced.c.lo, r);
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
  for (auto* row : {&s_hi, &s_lo, &c_hi, &c_lo, &hi_, &lo_}) row->resize(n);
  angles_.resize(n);
  scratch_.resize(5 * n);
  for (std::size_t k = 0; k < n; ++k) {
    angles_[k] = reduce_turns(p[k], f[k]);
    hi_[k] = angles_[k].hi, lo_[k] = angles_[k].lo;
  }
  kernels.sin_cos_rows({static_cast<std::int64_t>(n), hi_.data(), lo_.data(), s_hi.data(), s_lo.data(), c_hi.data(), c_lo.data(), scratch_.data()},
                       sin_cos_dd_table());
  for (std::size_t k = 0; k < n; ++k) {
    std::tie(s_hi[k], c_hi[k]) = undo_quarter_turns(s_hi[k], c_hi[k], angles_[k]);
    std::tie(s_lo[k], c_lo[k]) = undo_quarter_turns(s_lo[k], c_lo[k], angles_[k]);
  }
}

}  // namespace pe
