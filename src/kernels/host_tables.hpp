// The tables a rotate or encode launch reads, computed on the host from pecheck's frequency laws before the launch.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "pe/frequency_cache.hpp"
#include "pe/mp.hpp"
#include "pe/phase.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/schemes/sinusoidal.hpp"
#include "pe/spec.hpp"

namespace pe::kernels {

// A frequency law's angles for both modes: omega_k in binary32 for the fast mode, and
// frac(omega_k / 2pi) * 2^128 as two words per pair (high first) for the accurate mode, from the
// exact frequency (not its binary64 rounding: proofs/precision.kernel_rotate.md).
struct angle_tables {
  std::vector<float> inv_freq;
  std::vector<std::uint64_t> turns;

  // Once per law and process: the 320-bit fractions were about two thirds of a gate run's time
  // when every call computed them (6.75 s for the zoo specs at f32, 10 cases; see the commit).
  template <pe::keyed_frequency_law Freq>
  static angle_tables of(const Freq& freq, int pairs) {
    const std::string key = "kernels.angle_tables|" + freq.cache_key() + "|" + std::to_string(pairs);
    return *pe::cached<angle_tables>(key, [&] {
      angle_tables t;
      for (int k = 0; k < pairs; ++k) {
        t.inv_freq.push_back(static_cast<float>(freq.template omega<double>(k)));
        // Exact to 2^-320 below its integer part, so the fraction is exact to 2^-300 turns.
        const pe::turn_fraction f = pe::fraction_of_turn(pe::omega_with_fraction_bits(freq, k, 320));
        t.turns.push_back(f.word[0]), t.turns.push_back(f.word[1]);
      }
      return t;
    });
  }
};

// A rope spec as the rotate and attend kernels take it, read from its plan: the head dim, the
// rotated dims (one block at the start, neox or GPT-J pairs), the angles for one call (dynamic
// scalings read its length, max(pos) + 1) and the attention factor. The one place the kernels'
// users read a spec's layout.
struct rotate_tables : angle_tables {
  std::int64_t dim = 0, rotary_dim = 0;
  bool neox = true;
  double factor = 1;

  // Whether the kernels take s: rope only. xPos, the axial and multimodal forms rotate by plans
  // they do not take (the plugin answers unsupported).
  static bool takes(const pe::spec& s) { return s.scheme() == "rope"; }
  // For a spec they take.
  static rotate_tables of(const pe::spec& s, std::span<const std::int64_t> pos) {
    const auto plan = pe::rope_plan(s, pe::call_seq_len(pos));
    rotate_tables t;
    static_cast<angle_tables&>(t) = angle_tables::of(plan.freq, static_cast<int>(plan.pairs.size()));
    t.dim = plan.dim, t.rotary_dim = plan.blocks.front().width, t.neox = plan.blocks.front().neox;
    t.factor = plan.freq.attention_factor<double>();
    return t;
  }
};

// An encoding whose components are sin and cos of p omega_i (the scheme's encode_phases: the
// sinusoidal family): its angles, and per pair the columns of its sine and cosine.
struct encode_tables : angle_tables {
  std::vector<std::int64_t> slots;  // [pairs][2]: sine's column, then cosine's

  static encode_tables of(const pe::spec& s) {
    const auto phases = pe::behaviour_of(s).phases(s);
    const auto where = pe::sinusoidal_slots::of(s);
    encode_tables t;
    static_cast<angle_tables&>(t) = angle_tables::of(phases->freq, static_cast<int>(where.half));
    for (std::int64_t i = 0; i < where.half; ++i) t.slots.push_back(where.sin_at(i)), t.slots.push_back(where.cos_at(i));
    return t;
  }
};

}  // namespace pe::kernels
