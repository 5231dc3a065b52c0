// Sinusoidal encodings: the paper's interleaved sin/cos, the [sin | cos] concat layout and fairseq's variant.
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include "pe/exact_number.hpp"
#include "pe/float_format.hpp"
#include "pe/phase.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// The frequencies of sinusoidal(dim, base, layout), exact in any scalar U:
// - interleaved, concat: omega_i = base^(-2i/dim) (Vaswani et al. 2017), i = 0 .. dim/2-1;
// - fairseq: omega_i = base^(-i/(dim/2 - 1)), the exponent divided by half_dim - 1
//   (fairseq's SinusoidalPositionalEmbedding; tensor2tensor's get_timing_signal_1d does the
//   same with the divisor clamped to >= 1), so the last frequency is exactly 1/base.
struct sinusoidal_frequencies {
  std::int64_t dim;
  double base;
  bool fairseq;
  // base as written where it is an expression (1e4*pi), else null: read exactly at MPFR precision.
  std::shared_ptr<const exact_number> exact_base;

  static sinusoidal_frequencies of(const spec& s) {
    return {s.integer("dim"), s.real("base"), s.choice("layout") == "fairseq", s.expression("base")};
  }
  // Every field omega reads (frequency_cache.hpp).
  std::string cache_key() const {
    return fmt::format("sinusoidal:{}:{:a}:{}:{}", dim, base, fairseq, exact_base ? exact_base->text() : "-");
  }
  template <class U>
  U omega(int i) const {
    using std::pow;
    const U exponent = fairseq ? U(-i) / U(dim / 2 - 1) : U(-2 * i) / U(dim);
    return pow(exact_or<U>(exact_base, base), exponent);
  }
};

// Where component pair i's sine and cosine go: interleaved puts sin(p w_i) at 2i and cos(p w_i)
// at 2i+1; concat and fairseq put the sines in the first half and the cosines in the second.
struct sinusoidal_slots {
  std::int64_t half;
  bool interleaved;
  static sinusoidal_slots of(const spec& s) { return {s.integer("dim") / 2, s.choice("layout") == "interleaved"}; }
  std::int64_t sin_at(std::int64_t i) const { return interleaved ? 2 * i : i; }
  std::int64_t cos_at(std::int64_t i) const { return interleaved ? 2 * i + 1 : half + i; }
};

// encode in binary64, every value correctly rounded: the fast kernels rotate the unit vector
// (cos slot 1, sin slot 0) by p w_i, which gives RN(cos) and RN(sin) wherever they prove the
// rounding; MPFR computes the rest (proofs/precision.fast_rotate.md, "encode"). Tokens are split
// across threads.
tensor<double> sinusoidal_encode_binary64(const spec& s, std::span<const std::int64_t> pos);

// encode: [T, dim], laid out as sinusoidal_slots says.
template <class T>
tensor<T> sinusoidal_encode(const spec& s, std::span<const std::int64_t> pos) {
  using C = compute_t<T>;
  const auto freq = sinusoidal_frequencies::of(s);
  const auto slots = sinusoidal_slots::of(s);
  if constexpr (std::is_same_v<T, double>) {
    return sinusoidal_encode_binary64(s, pos);
  } else if constexpr (std::is_same_v<C, double>) {
    // binary32, bf16, fp16: the correctly rounded binary64 value rounded once more, which is the
    // exact value's correct rounding unless that double is a midpoint of T's format; those
    // values are rounded from MPFR instead (as rotate does, proofs/precision.fast_rotate.md).
    const tensor<double> y64 = sinusoidal_encode_binary64(s, pos);
    tensor<T> out(y64.shape);
    for (size_t e = 0; e < y64.data.size(); ++e) out.data[e] = store_as<T>(y64.data[e]);
    std::optional<phase_table<double>> phases;
    for (size_t t = 0; t < pos.size(); ++t)
      for (std::int64_t i = 0; i < slots.half; ++i) {
        const bool sin_tie = is_midpoint_in_format(y64(t, slots.sin_at(i)), format_of<T>());
        const bool cos_tie = is_midpoint_in_format(y64(t, slots.cos_at(i)), format_of<T>());
        if (!sin_tie && !cos_tie) continue;
        if (!phases) phases.emplace(freq, static_cast<int>(slots.half));
        const auto [sn, cs] = phases->sin_cos_wide(pos[t], static_cast<int>(i));
        out(t, slots.sin_at(i)) = store_as<T>(sn);
        out(t, slots.cos_at(i)) = store_as<T>(cs);
      }
    return out;
  } else {
    const phase_table<C> phases(freq, static_cast<int>(slots.half));
    tensor<T> out({static_cast<std::int64_t>(pos.size()), freq.dim});
    for (size_t t = 0; t < pos.size(); ++t) {
      for (std::int64_t i = 0; i < slots.half; ++i) {
        const auto [sn, cs] = phases.sin_cos(pos[t], static_cast<int>(i));
        out(t, slots.sin_at(i)) = store_as<T>(sn);
        out(t, slots.cos_at(i)) = store_as<T>(cs);
      }
    }
    return out;
  }
}

// The frequencies as stored values of T (angular, rad/token).
template <class T>
std::vector<T> sinusoidal_omegas(const spec& s) {
  using C = compute_t<T>;
  const auto freq = sinusoidal_frequencies::of(s);
  std::vector<T> out;
  for (int i = 0; i < freq.dim / 2; ++i) {
    if constexpr (std::is_same_v<C, mp_real>) {
      mp_working_bits scope(mp_output_bits() + 64);
      out.push_back(store_as<T>(freq.omega<mp_real>(i)));
    } else if constexpr (std::is_same_v<C, double>) {
      mp_working_bits scope(128);  // correctly rounded to binary64 from a 128-bit value
      out.push_back(store_as<T>(static_cast<double>(freq.omega<mp_real>(i))));
    } else {
      out.push_back(store_as<T>(freq.omega<C>(i)));
    }
  }
  return out;
}

}  // namespace pe
