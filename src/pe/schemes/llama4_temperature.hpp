// Llama 4's attention temperature for its NoPE layers: queries at position p scaled by ln(floor((p + 1)/F) + 1) a + 1.
#pragma once
#include <cstdint>
#include <optional>
#include <span>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/exact_number.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// tau(p) = ln(floor((p + 1)/F) + 1) * a + 1 for a cache position p >= 0, F = floor_scale, a =
// attn_scale (HF transformers, modeling_llama4.py: log1p(floor((cache_position + 1) / floor_scale))
// * attn_scale + 1, multiplied into the queries), in W at the precision in force. The floor is
// decided in integers; tau is 1 exactly while p + 1 < F.
template <class W>
W llama4_temperature_tau(const spec& s, std::int64_t p) {
  using std::log;
  if (p < 0) throw input_error(fmt::format("llama4_temperature: position {} is negative; cache positions start at 0", p));
  const std::uint64_t block = (static_cast<std::uint64_t>(p) + 1) / static_cast<std::uint64_t>(s.integer("floor_scale"));  // no overflow at INT64_MAX
  W k;
  if constexpr (std::is_same_v<W, mp_real>) k = mp_real(block);  // exact: block < 2^64 and W has >= 128 bits
  else k = W(static_cast<double>(block));
  return log(k + W(1)) * real_as<W>(s, "attn_scale") + W(1);  // an expression exact at MPFR precision
}

// op scale: tau at each position [T], computed wide (192 bits for stored binary formats, output
// + 64 for MPFR) and rounded once.
template <class T>
tensor<T> llama4_temperature_scale(const spec& s, std::span<const std::int64_t> pos) {
  using W = wide_t<T>;
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(std::is_same_v<T, mp_real> ? mp_output_bits() + 64 : 192);
  tensor<T> out({static_cast<std::int64_t>(pos.size())});
  for (std::size_t t = 0; t < pos.size(); ++t) out.data[t] = store_as<T>(llama4_temperature_tau<W>(s, pos[t]));
  return out;
}

}  // namespace pe
