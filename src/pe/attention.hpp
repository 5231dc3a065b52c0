// Reference attention (op attend): softmax(Q K^T / sqrt(d) + bias + mask) V with every way an encoding enters.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "pe/mp.hpp"
#include "pe/scheme.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// attend's inputs. Absolute encodings (integer, normalized, binary, sinusoidal, learned) add
// their vectors to x before the projections: q = (x + pe) W_q and so on (self-attention over
// pos). Every other scheme takes q, k, v directly: rotary schemes rotate q at qpos and k at
// kpos ([T, A] and [S, A] for axial forms); bias schemes add their bias to the scores;
// score-terms schemes add their own terms; none() is plain attention.
struct attend_inputs {
  tensor<double> q, k, v;            // [T, H, D], [S, H, D], [S, H, Dv]
  tensor<double> x, wq, wk, wv;      // absolute: x [T, d_model], w [d_model, H * D]
  std::int64_t heads = 0;            // absolute: H
  std::vector<std::int64_t> qpos, kpos;
  bool causal = false;               // mask keys whose position is after the query's
};

// out [T, H, Dv], computed in MPFR (128 bits for stored binary formats, output + 64 for MPFR)
// and rounded once. Softmax subtracts the row maximum, so it stays exact at any precision.
template <class T>
tensor<T> attend(const spec& s, const attend_inputs& in);

// What attend scores, for an error model that needs the magnitudes (the gate): q, k and v
// after the scheme's input side ([T, H*D], [S, H*D], [S, H*Dv] row-major, rounded to binary64
// from the precision in force), the positions the mask compares ([T, A] and [S, A]; absent ones
// are 0 .. n-1) and a bias scheme's bias [H, T, S] (empty for the others).
struct attend_parts {
  std::int64_t queries = 0, keys = 0, heads = 0, dim = 0, value_dim = 0, axes = 1;
  std::vector<double> q, k, v;
  std::vector<std::int64_t> qpos, kpos;
  std::vector<double> bias;
};
attend_parts attend_scores(const spec& s, const attend_inputs& in);

// The scheme's named unscaled score terms for the given inputs (DeBERTa: c2c, c2p, p2c;
// Transformer-XL: a, b, c, d), [H, T, S] each; spec_error for a scheme without them.
std::vector<named_tensor<mp_real>> score_terms(const spec& s, const attend_inputs& in);

// The four terms of an absolute additive score (seed 000 / 004): with q_i = (x_i + p_i) W_q and
// k_j = (x_j + p_j) W_k, q_i . k_j = word.word + word.position + position.word +
// position.position. Returned per head as [H, T, T] each, with the full q_i . k_j alongside.
struct four_terms {
  tensor<mp_real> word_word, word_position, position_word, position_position, score;
};
four_terms absolute_score_terms(const spec& s, const attend_inputs& in);

extern template tensor<double> attend<double>(const spec&, const attend_inputs&);
extern template tensor<float> attend<float>(const spec&, const attend_inputs&);
extern template tensor<mp_real> attend<mp_real>(const spec&, const attend_inputs&);

}  // namespace pe
