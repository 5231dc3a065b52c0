// Tests for src/pe/schemes/deberta.hpp: DeBERTa-v2 log buckets (a ceil, exact) and disentangled attention.
#include "pe/schemes/deberta.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "pe/ops.hpp"
#include "pe/schemes/absolute.hpp"

namespace {

using pe::mp_real;

// Hand-derived from HF's make_log_bucket_position (rel = query - key, mid = buckets/2):
// 256 buckets, max_position 512: |rel| <= 128 unchanged; 129 -> 128 + ceil(0.714) = 129;
// 200 -> 128 + ceil(40.94) = 169; 511 is the exact boundary 128 + 127 = 255 (the log ratio is
// exactly 1: float32 code can land on 256); 512 -> 256; 1000 -> 128 + ceil(188.6) = 317.
// 8 buckets, max_position 64: 5 and 6 -> 5; 63 is exact (4 + 3 = 7); 64 -> 8. Checked against
// an mpmath transcription at 60 digits.
TEST(deberta_bucket, hand_derived_values) {
  const std::pair<std::int64_t, std::int64_t> big[] = {{0, 0}, {5, 5}, {-128, -128}, {128, 128}, {129, 129}, {-129, -129},
                                                        {200, 169}, {511, 255}, {512, 256}, {1000, 317}, {-1000, -317}};
  for (const auto& [rel, want] : big) EXPECT_EQ(pe::deberta_bucket(rel, 256, 512), want) << rel;
  const std::pair<std::int64_t, std::int64_t> small[] = {{4, 4}, {5, 5}, {6, 5}, {-6, -5}, {63, 7}, {64, 8}, {-64, -8}, {100, 8}};
  for (const auto& [rel, want] : small) EXPECT_EQ(pe::deberta_bucket(rel, 8, 64), want) << rel;
  EXPECT_EQ(pe::deberta_bucket(-77, 0, 512), -77);  // no buckets: the distance itself
}

TEST(deberta_bucket, rows_clamp_into_the_table) {
  const pe::spec s = pe::parse_spec("deberta(k=4, buckets=8, max_position=64, dim=2)");
  EXPECT_EQ(pe::deberta_row(0, s), 8);                                  // span 8: bucket 0 is row 8
  EXPECT_EQ(pe::deberta_row(-6, s), 3);                                 // bucket -5
  EXPECT_EQ(pe::deberta_row(100, s), 15);                               // bucket 8 clamps to 2 span - 1
  EXPECT_EQ(pe::deberta_row(std::numeric_limits<std::int64_t>::min(), s), 0);
  EXPECT_EQ(pe::deberta_row(std::numeric_limits<std::int64_t>::max(), s), 15);
  const pe::spec plain = pe::parse_spec("deberta(k=3, dim=2)");        // no buckets: span k = 3
  EXPECT_EQ(pe::deberta_row(-2, plain), 1);
  EXPECT_EQ(pe::deberta_row(9, plain), 5);
}

// Disentangled attention written out as HF computes it: (q.k + q.K_r[row] + k.Q_r[row]) / sqrt(3 d)
// with row = clamp(bucket(i - j) + span, 0, 2 span - 1) for both c2p and p2c.
TEST(deberta_attend, matches_the_hf_formula) {
  pe::mp_precision scope(256);
  const std::int64_t n = 4, heads = 2, d = 3;
  std::mt19937_64 rng(31);
  std::uniform_real_distribution<double> u(-1, 1);
  pe::attend_inputs in;
  in.q = pe::tensor<double>({n, heads, d});
  in.k = pe::tensor<double>({n, heads, d});
  in.v = pe::tensor<double>({n, heads, d});
  for (auto* t : {&in.q, &in.k, &in.v})
    for (auto& x : t->data) x = u(rng);
  in.qpos = {0, 1, 5, 30};
  in.kpos = {0, 1, 5, 30};
  const pe::spec s = pe::parse_spec("deberta(k=4, buckets=8, max_position=64, heads=2, dim=3, seed=2)");
  const auto out = pe::attend<mp_real>(s, in);
  const std::int64_t span = 8, width = heads * d, entries = 2 * span * width;
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n; ++i) {
      std::vector<mp_real> w(n);
      mp_real total = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t row = std::clamp<std::int64_t>(pe::deberta_bucket(in.qpos[i] - in.kpos[j], 8, 64) + span, 0, 2 * span - 1);
        mp_real score = 0;
        for (std::int64_t e = 0; e < d; ++e) {
          const mp_real q(in.q.data[(i * heads + h) * d + e]), k(in.k.data[(j * heads + h) * d + e]);
          const std::int64_t col = row * width + h * d + e;
          score += q * k + q * mp_real(pe::learned_entry(2, col, 0.02)) + k * mp_real(pe::learned_entry(2, entries + col, 0.02));
        }
        w[j] = exp(score / sqrt(mp_real(3 * d)));
        total += w[j];
      }
      for (std::int64_t c = 0; c < d; ++c) {
        mp_real acc = 0;
        for (std::int64_t j = 0; j < n; ++j) acc += w[j] * mp_real(in.v.data[(j * heads + h) * d + c]);
        EXPECT_LT(abs(out.data[(i * heads + h) * d + c] - acc / total), mp_real("1e-70")) << h << i << c;
      }
    }
  // The three terms, returned separately, recombine into the same scores.
  const auto terms = pe::deberta_score_terms(s, in);
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t row = std::clamp<std::int64_t>(pe::deberta_bucket(in.qpos[i] - in.kpos[j], 8, 64) + span, 0, 2 * span - 1);
        mp_real c2p = 0;
        for (std::int64_t e = 0; e < d; ++e) c2p += mp_real(in.q.data[(i * heads + h) * d + e]) * mp_real(pe::learned_entry(2, row * width + h * d + e, 0.02));
        EXPECT_LT(abs(terms[1].data[(h * n + i) * n + j] - c2p), mp_real("1e-70"));
      }
  // Relative: shifting every position changes nothing.
  in.qpos = {1000, 1001, 1005, 1030};
  in.kpos = {1000, 1001, 1005, 1030};
  const auto shifted = pe::attend<mp_real>(s, in);
  for (size_t e = 0; e < out.data.size(); ++e) EXPECT_LT(abs(out.data[e] - shifted.data[e]), mp_real("1e-60"));
}

}  // namespace
