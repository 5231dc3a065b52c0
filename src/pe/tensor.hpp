// A dense row-major tensor: shape plus data, the unit every op reads and writes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pe {

// The most values one op may produce (2^28: 2 GiB of doubles); larger requests are input errors.
inline constexpr std::int64_t max_tensor_elements = std::int64_t{1} << 28;

// The element count of `shape`, or an input_error naming the shape when it is negative or too large.
inline std::int64_t checked_element_count(const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0 || (d > 0 && n > max_tensor_elements / d)) {
      throw input_error(fmt::format("an output of shape [{}] is larger than the limit of {} values",
                                    fmt::join(shape, ", "), max_tensor_elements));
    }
    n *= d;
  }
  return n;
}

template <class T>
struct tensor {
  std::vector<std::int64_t> shape;
  std::vector<T> data;

  tensor() = default;
  explicit tensor(std::vector<std::int64_t> s) : shape(std::move(s)), data(static_cast<size_t>(checked_element_count(shape))) {}
  T& operator()(std::int64_t r, std::int64_t c) { return data[static_cast<size_t>(r * shape[1] + c)]; }
  const T& operator()(std::int64_t r, std::int64_t c) const { return data[static_cast<size_t>(r * shape[1] + c)]; }
};

// An op's result: outputs by their project-wide names ("pe", "y", "inv_freq", ...).
template <class T>
struct named_tensor {
  std::string name;
  tensor<T> value;
};

}  // namespace pe
