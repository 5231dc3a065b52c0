// Layer lists as runs of indices and as a repeating pattern.
#include "convert/layer_ranges.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace pe::convert {

std::string ranges_text(const std::vector<std::int64_t>& layers) {
  std::string out;
  for (std::size_t i = 0; i < layers.size();) {
    std::size_t j = i;
    while (j + 1 < layers.size() && layers[j + 1] == layers[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? fmt::format("{}", layers[i]) : fmt::format("{}-{}", layers[i], layers[j]);
    i = j + 1;
  }
  return out;
}

std::optional<layer_period> period_of(const std::vector<std::int64_t>& layers, std::int64_t count) {
  // Real interleavings repeat every 2 to 8 layers; 256 bounds the search (count x 256 steps).
  constexpr std::int64_t longest = 256;
  if (count < 4 || layers.empty() || static_cast<std::int64_t>(layers.size()) == count) return std::nullopt;
  std::vector<char> in(static_cast<std::size_t>(count), 0);
  for (const auto l : layers) in[static_cast<std::size_t>(l)] = 1;
  for (std::int64_t p = 2; p <= std::min(longest, count / 2); ++p) {
    bool repeats = true;
    for (std::int64_t i = p; i < count && repeats; ++i) repeats = in[static_cast<std::size_t>(i)] == in[static_cast<std::size_t>(i % p)];
    if (!repeats) continue;
    const auto k = std::count(in.begin(), in.begin() + p, 1);
    return layer_period{k, p};
  }
  return std::nullopt;
}

}  // namespace pe::convert
