// Op `encode`: positions -> [T, dim] additive position vectors, for every absolute scheme.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/schemes/absolute.hpp"
#include "pe/schemes/sinusoidal.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

template <class T>
tensor<T> encode(const spec& s, std::span<const std::int64_t> positions) {
  const std::string& name = s.scheme();
  if (name == "sinusoidal") return sinusoidal_encode<T>(s, positions);
  if (name == "integer") return integer_encode<T>(s, positions);
  if (name == "normalized") return normalized_encode<T>(s, positions);
  if (name == "binary") return binary_encode<T>(s, positions);
  if (name == "learned") return learned_encode<T>(s, positions);
  if (name == "none") return none_encode<T>(s, positions);
  throw spec_error(fmt::format("{}: op 'encode' is not supported (ops: {})", name, fmt::join(s.info().ops, ", ")));
}

extern template tensor<double> encode<double>(const spec&, std::span<const std::int64_t>);
extern template tensor<float> encode<float>(const spec&, std::span<const std::int64_t>);
extern template tensor<bf16> encode<bf16>(const spec&, std::span<const std::int64_t>);
extern template tensor<fp16> encode<fp16>(const spec&, std::span<const std::int64_t>);
extern template tensor<mp_real> encode<mp_real>(const spec&, std::span<const std::int64_t>);

}  // namespace pe
