// Shaw et al. (2018) relative position representations: clipped key and value embeddings a^K, a^V.
#pragma once
#include <cstdint>
#include <vector>

#include "pe/spec.hpp"

namespace pe {

// Distances key - query clipped to [-k, k] index tables of 2k + 1 rows. The score gains
// q_i . a^K_(clip(j - i)) / sqrt(d) and the output gains sum_j alpha_ij a^V_(clip(j - i));
// both tables are shared by the heads (as in the paper). They stand in for trained weights:
// a^K row r, column c is learned_entry(seed, r * dim + c, init_std), a^V continues the same
// stream after a^K's (2k + 1) * dim entries.
struct shaw_tables {
  std::int64_t k = 0, dim = 0;
  std::vector<double> key, value;  // [2k + 1, dim] each, row-major
};

shaw_tables make_shaw_tables(const spec& s);

// The table row of distance key - query: clip(kpos - qpos, -k, k) + k, without overflow.
inline std::int64_t shaw_row(std::int64_t kpos, std::int64_t qpos, std::int64_t k) {
  if (kpos >= qpos) {
    const std::uint64_t ahead = static_cast<std::uint64_t>(kpos) - static_cast<std::uint64_t>(qpos);
    return k + static_cast<std::int64_t>(std::min<std::uint64_t>(ahead, static_cast<std::uint64_t>(k)));
  }
  const std::uint64_t behind = static_cast<std::uint64_t>(qpos) - static_cast<std::uint64_t>(kpos);
  return k - static_cast<std::int64_t>(std::min<std::uint64_t>(behind, static_cast<std::uint64_t>(k)));
}

}  // namespace pe
