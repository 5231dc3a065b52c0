// Sinusoidal encodings: the paper's interleaved sin/cos, the [sin | cos] concat layout and fairseq's variant.
#pragma once
#include <cstdint>
#include <span>

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

  static sinusoidal_frequencies of(const spec& s) {
    return {s.integer("dim"), s.real("base"), s.choice("layout") == "fairseq"};
  }
  // Every field omega reads (frequency_cache.hpp).
  std::string cache_key() const { return fmt::format("sinusoidal:{}:{:a}:{}", dim, base, fairseq); }
  template <class U>
  U omega(int i) const {
    using std::pow;
    const U exponent = fairseq ? U(-i) / U(dim / 2 - 1) : U(-2 * i) / U(dim);
    return pow(U(base), exponent);
  }
};

// encode: [T, dim]. interleaved puts sin(p w_i) at 2i and cos(p w_i) at 2i+1; concat and
// fairseq put the sines in the first half and the cosines in the second.
template <class T>
tensor<T> sinusoidal_encode(const spec& s, std::span<const std::int64_t> pos) {
  using C = compute_t<T>;
  const auto freq = sinusoidal_frequencies::of(s);
  const int half = static_cast<int>(freq.dim / 2);
  const bool interleaved = s.choice("layout") == "interleaved";
  const phase_table<C> phases(freq, half);
  tensor<T> out({static_cast<std::int64_t>(pos.size()), freq.dim});
  for (size_t t = 0; t < pos.size(); ++t) {
    for (int i = 0; i < half; ++i) {
      const auto [sn, cs] = phases.sin_cos(pos[t], i);
      out(t, interleaved ? 2 * i : i) = store_as<T>(sn);
      out(t, interleaved ? 2 * i + 1 : half + i) = store_as<T>(cs);
    }
  }
  return out;
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
