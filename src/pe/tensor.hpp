// A dense row-major tensor: shape plus data, the unit every op reads and writes.
#pragma once
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/huge_pages.hpp"
#include "pe/mp.hpp"

namespace pe {

// The most memory one op's output may take (2 GiB: 2^28 doubles, fewer MPFR values); larger
// requests are input errors before anything is allocated.
inline constexpr std::int64_t max_tensor_bytes = std::int64_t{1} << 31;

// The element count of `shape`, or an input_error naming the shape when it is negative or
// would take more than max_tensor_bytes at `bytes_per_value`.
inline std::int64_t checked_element_count(const std::vector<std::int64_t>& shape, std::int64_t bytes_per_value) {
  const std::int64_t limit = max_tensor_bytes / bytes_per_value;
  std::int64_t n = 1;
  for (const std::int64_t d : shape) {
    if (d < 0 || (d > 0 && n > limit / d)) {
      throw input_error(fmt::format("an output of shape [{}] is larger than the limit of {} values at this precision",
                                    fmt::join(shape, ", "), limit));
    }
    n *= d;
  }
  return n;
}

// Memory per value: the type itself, plus the limbs of an MPFR number at the output precision.
template <class T>
std::int64_t bytes_per_value() {
  if constexpr (std::is_same_v<T, mp_real>) return static_cast<std::int64_t>(sizeof(T) + mp_output_bits() / 8 + 16);
  else return static_cast<std::int64_t>(sizeof(T));
}

template <class T>
struct tensor {
  std::vector<std::int64_t> shape;
  std::vector<T> data;

  tensor() = default;
  explicit tensor(std::vector<std::int64_t> s) : shape(std::move(s)) {
    const auto n = static_cast<size_t>(checked_element_count(shape, bytes_per_value<T>()));
    // A large binary output: reserved, put on huge pages, and only then filled (a fresh 32 MiB
    // output otherwise spends more time in page faults than in being computed).
    if constexpr (std::is_arithmetic_v<T>) {
      if (n * sizeof(T) >= huge_page_worthwhile_bytes) {
        data.reserve(n);
        advise_huge_pages(data.data(), n * sizeof(T));
      }
    }
    data.resize(n);
  }
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
