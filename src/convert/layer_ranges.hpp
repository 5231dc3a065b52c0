// Layer lists as people read them: "0-4, 6-10, 30-33" and the repeating pattern "5 of every 6".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pe::convert {

// Ascending layer indices as comma-separated runs: {0,1,2,4} -> "0-2, 4".
std::string ranges_text(const std::vector<std::int64_t>& layers);

// A period p (2 <= p <= 256, at least two whole periods in `count` layers) such that layer i is
// in `layers` exactly when layer i mod p is, the smallest such p, and how many of each p layers
// are in: {k, p} for "k of every p". nullopt when the layers repeat no such pattern.
struct layer_period {
  std::int64_t in_each = 0, period = 0;
};
std::optional<layer_period> period_of(const std::vector<std::int64_t>& layers, std::int64_t count);

}  // namespace pe::convert
