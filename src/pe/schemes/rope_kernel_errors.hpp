// What a correct kernel's RoPE frequencies may be off by under each scaling, for the gate's error model (proofs/gate_tolerance.md).
#pragma once
#include <cmath>

#include "pe/schemes/rope.hpp"

namespace pe {

// Whether the scaling raises a new base to -2i/r (NTK, dynamic NTK) rather than scaling the
// unscaled frequencies.
inline bool rescales_base(const rope_frequencies& f) {
  return f.scaling && (f.scaling->scheme() == "ntk" || f.scaling->scheme() == "dynamic");
}

// The relative error of the base a kernel raises to -e, in units of u_w: the base's own rounding,
// and for NTK and dynamic NTK the rescaled base's few operations (proofs/gate_tolerance.md, step 2).
inline double base_error_units(const rope_frequencies& f) {
  if (!f.scaling || f.freqs) return 1;
  const spec& sc = *f.scaling;
  const double r = static_cast<double>(f.rotary), stretch = r / (r - 2);
  if (sc.scheme() == "ntk") return 4 + stretch * std::log(sc.real("factor"));
  if (sc.scheme() == "dynamic" && f.seq_len && *f.seq_len > sc.integer("original_max")) {
    const double factor = sc.real("factor"), ratio = static_cast<double>(*f.seq_len) / static_cast<double>(sc.integer("original_max"));
    const double bracket = factor * ratio - (factor - 1);  // >= 1: cancellation costs factor ratio / bracket
    return 4 + stretch * std::log(bracket) + stretch * (3 * factor * ratio / bracket + 1);
  }
  return 1;
}

// The absolute error of a blend weight w (YaRN's ramp, Llama 3's 1 - smooth) a kernel computes
// in working precision u (proofs/gate_tolerance.md, step 3), for pair k with unscaled frequency
// `plain` whose own relative error is `plain_error`.
inline double weight_error(const rope_frequencies& f, int k, double w, double plain, double plain_error, double u) {
  const spec& sc = *f.scaling;
  if (sc.scheme() == "yarn") {
    // w = (k - low) / span. Each correction dim r ln(L / (2 pi beta)) / (2 ln base) carries
    // E <= u (2 r / ln base + 6 |dim|) when formed in working precision. Truncated, it is an exact integer unless its untruncated
    // value lies within E of one, where a kernel may floor to the neighbour: a whole step.
    const auto [low, span] = f.yarn_ramp_range<double>();
    const double high = low + span;
    const auto [raw_low, raw_high] = f.yarn_correction_range<double>();
    const double r = static_cast<double>(f.rotary), ln_base = std::log(f.base);
    const auto dim_error = [&](double raw) { return u * (2 * r / ln_base + 6 * std::abs(raw)); };
    double e_low = dim_error(raw_low), e_high = dim_error(raw_high);
    if (f.yarn_truncates()) {
      const auto near_integer = [](double raw, double e) { return std::abs(raw - std::round(raw)) <= e; };
      e_low = near_integer(raw_low, e_low) ? 1 : 0;
      e_high = near_integer(raw_high, e_high) ? 1 : 0;
    }
    const double numerator = e_low + u * (std::abs(static_cast<double>(k)) + std::abs(low));
    const double denominator = e_low + e_high + u * (std::abs(low) + std::abs(high));
    return (numerator + std::abs(w) * denominator) / span + 2 * u * (std::abs(w) + 1);
  }
  // Llama 3: s = (L / lambda - lo) / (hi - lo) with lambda = 2 pi / plain: L / lambda carries
  // plain's error and three roundings; lo, hi are decimals (one rounding each).
  const double lo = sc.real("low_freq_factor"), hi = sc.real("high_freq_factor");
  const double turns = static_cast<double>(sc.integer("original_max")) * plain / (2 * M_PI);  // L / lambda
  // Equal factors: w is a step, 0 or 1, and a kernel's comparison lands on the other side only
  // where L / lambda is within its own rounding of lo: there the whole step.
  if (hi == lo) return std::abs(turns - lo) <= turns * (plain_error + 3 * u) + u * lo ? 1 : 0;
  const double s = 1 - w;
  return (turns * (plain_error + 3 * u) + 2 * u * lo + u * std::abs(turns - lo)) / (hi - lo) +
         std::abs(s) * u * ((hi + lo) / (hi - lo) + 2);
}

}  // namespace pe
