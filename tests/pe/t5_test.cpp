// Tests for src/pe/schemes/t5.hpp: T5 buckets derived by hand, exact log boundaries, and the bias table.
#include "pe/schemes/t5.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pe/ops.hpp"

namespace {

struct case_set {
  std::int64_t buckets, max_distance;
  bool bidirectional;
  std::vector<std::pair<std::int64_t, std::int64_t>> rel_bucket;
};

// Derived by hand from T5's definition, then checked against a transcription into mpmath:
// (16, 128, bi): 4 exact buckets per sign; the log buckets start at |rel| = 4, 4 * 32^(1/4) = 9.51,
//   4 * 32^(1/2) = 22.6 and 4 * 32^(3/4) = 53.8, the last capped (so 128 and beyond share it).
// (32, 128, bi): 8 exact; log boundaries at 8 * 16^(m/8): 16, 32 and 64 exactly (m = 2, 4, 6),
//   the last bucket from 8 * 16^(7/8) = 90.5.
// (32, 128, uni): keys after the query all in bucket 0; 16 exact; boundaries at 16 * 8^(m/16)
//   (18.2 for m = 1, 112.4 for the last).
const case_set cases[] = {
    {16, 128, true, {{0, 0}, {1, 9}, {-1, 1}, {3, 11}, {-3, 3}, {4, 12}, {5, 12}, {9, 12}, {10, 13}, {22, 13}, {23, 14},
                     {53, 14}, {54, 15}, {127, 15}, {128, 15}, {129, 15}, {-9, 4}, {-10, 5}, {-54, 7}, {1000000, 15},
                     {-1000000, 7}}},
    {32, 128, true, {{0, 0}, {1, 17}, {-1, 1}, {7, 23}, {8, 24}, {11, 24}, {12, 25}, {15, 25}, {16, 26}, {31, 27}, {32, 28},
                     {63, 29}, {64, 30}, {90, 30}, {91, 31}, {127, 31}, {128, 31}, {1000000, 31}, {-8, 8}, {-16, 10},
                     {-91, 15}, {-1000000, 15}}},
    {32, 128, false, {{0, 0}, {5, 0}, {-1, 1}, {-15, 15}, {-16, 16}, {-18, 16}, {-19, 17}, {-112, 30}, {-113, 31},
                      {-128, 31}, {-1000000, 31}}},
};

TEST(t5_bucket, hand_derived_values) {
  for (const auto& c : cases)
    for (const auto& [rel, want] : c.rel_bucket) {
      EXPECT_EQ(pe::t5_bucket(rel, c.buckets, c.max_distance, c.bidirectional), want)
          << "buckets=" << c.buckets << " bidirectional=" << c.bidirectional << " rel=" << rel;
    }
}

TEST(t5_bucket, monotone_in_distance_and_extreme_inputs) {
  std::int64_t previous = -1;
  for (std::int64_t rel = 0; rel < 5000; ++rel) {
    const std::int64_t b = pe::t5_bucket(rel, 32, 128, true);
    EXPECT_GE(b, previous) << rel;
    previous = b;
  }
  EXPECT_EQ(pe::t5_bucket(std::numeric_limits<std::int64_t>::min(), 32, 128, true), 15);
  EXPECT_EQ(pe::t5_bucket(std::numeric_limits<std::int64_t>::max(), 32, 128, true), 31);
}

// HF computes the log bucket in float32: torch.log(n.float() / exact) / math.log(max_distance /
// exact) * (nb - exact), truncated. Written here as that float32 arithmetic, it agrees with the
// exact buckets over -300..300 for these configurations (the boundaries 16, 32, 64 come out
// exact in float32 because f32(ln 4) and f32(ln 8) are 2 and 3 times f32(ln 2)).
std::int64_t hf_float32_bucket(std::int64_t rel, std::int64_t nb, std::int64_t md, bool bi) {
  std::int64_t out = 0;
  std::int64_t n = 0;
  if (bi) {
    nb /= 2;
    out += rel > 0 ? nb : 0;
    n = std::llabs(rel);
  } else {
    n = -std::min<std::int64_t>(rel, 0);
  }
  const std::int64_t exact = nb / 2;
  if (n < exact) return out + n;
  const float scale = static_cast<float>(std::log(static_cast<double>(md) / static_cast<double>(exact)));
  const float v = std::log(static_cast<float>(n) / static_cast<float>(exact)) / scale * static_cast<float>(nb - exact);
  return out + std::min<std::int64_t>(exact + static_cast<std::int64_t>(v), nb - 1);
}

TEST(t5_bucket, float32_hf_code_agrees_on_these_configurations) {
  for (const auto& c : cases)
    for (std::int64_t rel = -300; rel <= 300; ++rel) {
      EXPECT_EQ(pe::t5_bucket(rel, c.buckets, c.max_distance, c.bidirectional),
                hf_float32_bucket(rel, c.buckets, c.max_distance, c.bidirectional))
          << "buckets=" << c.buckets << " rel=" << rel;
    }
}

TEST(t5_bias, looks_up_the_table_by_bucket) {
  const pe::spec s = pe::parse_spec("t5(heads=3, seed=7)");
  const std::vector<std::int64_t> q{0, 5, 100}, k{0, 1, 5, 40, 100, 400};
  const auto bias = pe::t5_bias<double>(s, q, k);
  EXPECT_EQ(bias.shape, (std::vector<std::int64_t>{3, 3, 6}));
  for (std::int64_t h = 0; h < 3; ++h)
    for (size_t i = 0; i < q.size(); ++i)
      for (size_t j = 0; j < k.size(); ++j) {
        const std::int64_t b = pe::t5_bucket(k[j] - q[i], 32, 128, true);
        EXPECT_EQ(bias.data[(h * 3 + i) * 6 + j], pe::learned_entry(7, b * 3 + h, 0.05));
      }
  // Translation invariance: the same offsets give the same bias anywhere.
  const auto shifted = pe::t5_bias<double>(s, std::vector<std::int64_t>{1000}, std::vector<std::int64_t>{1005});
  EXPECT_EQ(shifted.data[0], bias.data[(0 * 3 + 0) * 6 + 2]);  // key - query = +5, as for q = 0, k = 5
}

}  // namespace
