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
  // Real interleavings repeat every 2 to 8 layers; 256 bounds the search.
  constexpr std::int64_t longest = 256;
  const auto n = static_cast<std::int64_t>(layers.size());
  if (count < 4 || layers.empty() || n == count) return std::nullopt;
  // The set repeats with period p exactly when shifting it by p gives its own members from p on:
  // with k members below p, member j + k is member j + p for every member j below count - p, and
  // no member is left over. Each p costs at most one pass over the members (never over the
  // count), so a model with thousands of kinds of one layer each stays linear.
  for (std::int64_t p = 2; p <= std::min(longest, count / 2); ++p) {
    const auto k = std::lower_bound(layers.begin(), layers.end(), p) - layers.begin();
    std::int64_t j = 0;
    while (j < n && layers[static_cast<std::size_t>(j)] + p < count && j + k < n &&
           layers[static_cast<std::size_t>(j + k)] == layers[static_cast<std::size_t>(j)] + p)
      ++j;
    const bool shifted = j == n || layers[static_cast<std::size_t>(j)] + p >= count;
    if (shifted && j + k == n) return layer_period{k, p};
  }
  return std::nullopt;
}

}  // namespace pe::convert
