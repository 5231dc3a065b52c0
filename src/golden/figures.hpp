// Golden tables of the lessons' figures (beside the op cases): RoFormer's long-term decay bound at chosen distances.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pe::golden {

// The figure's configuration: d = 128, base = 10^4 (RoFormer's figure 2), and the distances kept.
inline constexpr std::int64_t decay_dim = 128;
inline constexpr double decay_base = 10000;
const std::vector<std::int64_t>& decay_distances();  // 0, 10, 50, 100, 250, 1000

// Where the table lives under golden/, and its text: comment lines, then "distance value" lines,
// the values computed in MPFR at 256 bits and printed to 40 significant digits.
inline constexpr const char* decay_table_path = "figures/roformer_decay.txt";
std::string decay_table_text();

}  // namespace pe::golden
