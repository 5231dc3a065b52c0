// DeBERTa's disentangled attention (He et al. 2021): relative distances, log buckets, and the c2p / p2c terms.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// DeBERTa-v2's bucket of rel = query - key (the opposite sign to T5), as HF's
// make_log_bucket_position: with mid = buckets/2, |rel| <= mid stays rel; beyond,
// sign(rel) * (mid + ceil((mid - 1) ln(|rel|/mid) / ln((max_position - 1)/mid))) -- a ceil
// where T5 truncates, and no cap (the attention index clamps). The ceil is decided exactly
// in integers. Without buckets (buckets = 0) the distance is rel itself.
std::int64_t deberta_bucket(std::int64_t rel, std::int64_t buckets, std::int64_t max_position);

// The attention-table row of rel: clamp(bucket(rel) + span, 0, 2 span - 1), span = buckets if
// given, else k.
std::int64_t deberta_row(std::int64_t rel, const spec& s);

// Seeded stand-ins for the projected relative embeddings K_r = P W_k and Q_r = P W_q,
// [2 span, heads * dim] each (DeBERTa-v2 shares the content projections for them).
struct deberta_tables {
  std::int64_t span = 0, heads = 0, dim = 0;
  std::vector<double> key, query;
};
deberta_tables make_deberta_tables(const spec& s);

struct attend_inputs;
// DeBERTa's three terms for the given inputs, [H, T, S] each, unscaled: content-to-content
// q.k, content-to-position (c2p) and position-to-content (p2c); attend divides their sum by sqrt(3 d).
std::array<tensor<mp_real>, 3> deberta_score_terms(const spec& s, const attend_inputs& in);

}  // namespace pe
