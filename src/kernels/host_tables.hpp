// The tables a rotate launch reads, computed on the host from pecheck's frequency laws before the launch.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "pe/mp.hpp"
#include "pe/phase.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/spec.hpp"

namespace pe::kernels {

// A rope spec's frequencies for one call (dynamic scalings read its length, max(pos) + 1):
// omega_k in binary32 for the fast mode, frac(omega_k / 2pi) * 2^128 as two words per pair (high
// first) for the accurate mode, from the exact frequency as binary64 rotate takes it, and the
// attention factor.
struct rotate_tables {
  std::vector<float> inv_freq;
  std::vector<std::uint64_t> turns;
  double factor = 1;

  static rotate_tables of(const pe::spec& s, std::span<const std::int64_t> pos) {
    rotate_tables t;
    const auto plan = pe::rope_plan(s, pe::call_seq_len(pos));
    for (int k = 0; k < static_cast<int>(plan.pairs.size()); ++k) {
      t.inv_freq.push_back(static_cast<float>(plan.freq.omega<double>(k)));
      // Exact to 2^-320 below its integer part, so the fraction is exact to 2^-300 turns.
      const pe::turn_fraction f = pe::fraction_of_turn(pe::omega_with_fraction_bits(plan.freq, k, 320));
      t.turns.push_back(f[0]), t.turns.push_back(f[1]);
    }
    t.factor = plan.freq.attention_factor<double>();
    return t;
  }
};

}  // namespace pe::kernels
