// A dense row-major tensor: shape plus data, the unit every op reads and writes.
#pragma once
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

namespace pe {

template <class T>
struct tensor {
  std::vector<std::int64_t> shape;
  std::vector<T> data;

  tensor() = default;
  explicit tensor(std::vector<std::int64_t> s)
      : shape(std::move(s)), data(static_cast<size_t>(std::accumulate(shape.begin(), shape.end(), std::int64_t{1},
                                                                       std::multiplies<>()))) {}
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
