// Op `encode`: positions -> [T, dim] additive position vectors, through the scheme's encode hook.
#pragma once
#include <cstdint>
#include <span>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/scheme.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

template <class T>
tensor<T> encode(const spec& s, std::span<const std::int64_t> positions) {
  const auto& hook = behaviour_of(s).encode;
  if (!hook) throw spec_error(fmt::format("{}: op 'encode' is not supported (ops: {})", s.scheme(), fmt::join(s.info().ops, ", ")));
  return hook.template at<T>()(s, positions);
}

}  // namespace pe
