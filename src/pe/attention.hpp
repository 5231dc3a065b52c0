// Reference attention (op attend): softmax(Q K^T / sqrt(d) + bias + mask) V with every way an encoding enters.
#pragma once
#include <cmath>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include <Eigen/Dense>
#include <boost/multiprecision/eigen.hpp>
#include <fmt/format.h>

#include "pe/encode.hpp"
#include "pe/error.hpp"
#include "pe/mp.hpp"
#include "pe/schemes/alibi.hpp"
#include "pe/schemes/deberta.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/schemes/rope_nd.hpp"
#include "pe/schemes/shaw.hpp"
#include "pe/schemes/t5.hpp"
#include "pe/schemes/txl.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// attend's inputs. Absolute encodings (integer, normalized, binary, sinusoidal, learned) add
// their vectors to x before the projections: q = (x + pe) W_q and so on (self-attention over
// pos). Every other scheme takes q, k, v directly: the RoPE family rotates q at qpos and k at
// kpos ([T, A] and [S, A] for axial forms); ALiBi and T5 add their bias to the scores; none()
// is plain attention.
struct attend_inputs {
  tensor<double> q, k, v;            // [T, H, D], [S, H, D], [S, H, Dv]
  tensor<double> x, wq, wk, wv;      // absolute: x [T, d_model], w [d_model, H * D]
  std::int64_t heads = 0;            // absolute: H
  std::vector<std::int64_t> qpos, kpos;
  bool causal = false;               // mask keys whose position is after the query's
};

// Whether a scheme's vectors are added to the inputs (the four-term expansion applies).
inline bool is_absolute(const spec& s) {
  for (const char* name : {"integer", "normalized", "binary", "sinusoidal", "learned"})
    if (s.scheme() == name) return true;
  return false;
}

namespace detail {

using wide_matrix = Eigen::Matrix<mp_real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline wide_matrix to_wide(const tensor<double>& t, std::int64_t rows, std::int64_t cols) {
  wide_matrix m(rows, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) m(r, c) = mp_real(t.data[static_cast<size_t>(r * cols + c)]);
  return m;
}

inline void require_shape(const tensor<double>& t, const char* name, size_t rank) {
  if (t.shape.size() != rank) {
    throw input_error(fmt::format("attend: {} has shape [{}]; it needs {} axes", name, fmt::join(t.shape, ", "), rank));
  }
}

// q, k, v in wide precision as [rows, H * D] matrices, after the scheme's input-side changes.
struct projected {
  wide_matrix q, k, v;
  std::int64_t heads, dim, value_dim;
};

projected project(const spec& s, const attend_inputs& in);

// The given positions (n * axes of them), or 0 .. n-1 when none are given (one axis only).
std::vector<std::int64_t> positions_or_order(const std::vector<std::int64_t>& given, std::int64_t n, std::int64_t axes,
                                             const char* name);
tensor<mp_real> bias(const spec& s, const attend_inputs& in, std::int64_t heads);
// DeBERTa's c2p and p2c (unscaled) [H, T, S]: q_i . K_r[row] and k_j . Q_r[row], row =
// deberta_row(qpos_i - kpos_j). HF uses the same row for both; the paper writes p2c with
// delta(j, i) -- pecheck follows the code, which pretrained weights were trained with.
std::array<tensor<mp_real>, 2> deberta_terms(const spec& s, const attend_inputs& in, const projected& p);
// Transformer-XL's four terms of q k^T (unscaled), [H, T, S] each: (a) content, (b) content-position,
// (c) global content, (d) global position.
std::array<tensor<mp_real>, 4> txl_terms(const spec& s, const attend_inputs& in, const projected& p);

}  // namespace detail

// out [T, H, Dv], computed in MPFR (128 bits for stored binary formats, output + 64 for MPFR)
// and rounded once. Softmax subtracts the row maximum, so it stays exact at any precision.
template <class T>
tensor<T> attend(const spec& s, const attend_inputs& in) {
  const unsigned out_bits = mp_output_bits();
  mp_precision scope(std::is_same_v<T, mp_real> ? out_bits + 64 : 128);
  const auto p = detail::project(s, in);
  const std::int64_t n_q = p.q.rows(), n_k = p.k.rows(), heads = p.heads, d = p.dim, dv = p.value_dim;
  if (n_k == 0) throw input_error("attend: there are no keys (k has 0 rows)");
  if (d == 0) throw input_error("attend: q and k have head dim 0");
  if (s.scheme() == "alibi" && s.boolean("causal") && !in.causal) {
    throw input_error("attend: alibi(causal=true) is the decoder form; set \"causal\": true in the input, or use alibi(causal=false)");
  }
  auto b = detail::bias(s, in, heads);
  if (s.scheme() == "txl") {  // the four terms replace q.k; (b) + (c) + (d) act as a bias on the content score
    const auto terms = detail::txl_terms(s, in, p);
    b = tensor<mp_real>(terms[0].shape);
    const mp_real root_d = sqrt(mp_real(p.dim));
    for (size_t e = 0; e < b.data.size(); ++e) b.data[e] = (terms[1].data[e] + terms[2].data[e] + terms[3].data[e]) / root_d;
  }
  // The causal mask compares positions: the position itself, or for schemes with several
  // position columns the first (temporal) one. Key j is hidden from query i when it is later.
  // Absent positions are 0 .. n-1; absolute encodings attend over one sequence, so their keys
  // sit at the queries' positions.
  const bool masked = in.causal;
  const std::int64_t axes = position_axes(s);
  const auto qpos = detail::positions_or_order(in.qpos, n_q, axes, "qpos");
  const auto kpos = is_absolute(s) ? qpos : detail::positions_or_order(in.kpos, n_k, axes, "kpos");
  const auto later = [&](std::int64_t i, std::int64_t j) { return kpos[j * axes] > qpos[i * axes]; };
  // DeBERTa divides all three of its terms by sqrt(3 d) (HF: scale_factor = 1 + c2p + p2c).
  const bool deberta = s.scheme() == "deberta";
  const mp_real scale = 1 / sqrt(mp_real(deberta ? 3 * d : d));
  if (deberta) {
    const auto terms = detail::deberta_terms(s, in, p);
    b = tensor<mp_real>(terms[0].shape);
    for (size_t e = 0; e < b.data.size(); ++e) b.data[e] = (terms[0].data[e] + terms[1].data[e]) * scale;
  }
  // Shaw: relative key and value embeddings, row shaw_row(kpos, qpos) of each table.
  const bool shaw = s.scheme() == "shaw";
  shaw_tables rel;
  if (shaw) {
    rel = make_shaw_tables(s);
    if (rel.dim != d || rel.dim != dv) {
      throw input_error(fmt::format("attend: shaw has dim={} but q, k, v have head dims {}, {}", rel.dim, d, dv));
    }
    if (static_cast<std::int64_t>(in.qpos.size()) != n_q || static_cast<std::int64_t>(in.kpos.size()) != n_k) {
      throw input_error("attend: shaw needs one qpos per query and one kpos per key");
    }
  }
  const auto row = [&](std::int64_t i, std::int64_t j) { return shaw_row(kpos[j], qpos[i], rel.k); };
  tensor<T> out({n_q, heads, dv});
  std::vector<mp_real> z(static_cast<size_t>(n_k));
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n_q; ++i) {
      bool any = false;
      mp_real top;
      for (std::int64_t j = 0; j < n_k; ++j) {
        if (masked && later(i, j)) continue;
        mp_real dot = 0;
        for (std::int64_t c = 0; c < d; ++c) dot += p.q(i, h * d + c) * p.k(j, h * d + c);
        if (shaw) {
          const double* a = &rel.key[static_cast<size_t>(row(i, j) * d)];
          for (std::int64_t c = 0; c < d; ++c) dot += p.q(i, h * d + c) * mp_real(a[c]);
        }
        z[j] = dot * scale;
        if (!b.data.empty()) z[j] += b.data[static_cast<size_t>((h * n_q + i) * n_k + j)];
        if (!any || z[j] > top) top = z[j];
        any = true;
      }
      if (!any) throw input_error(fmt::format("attend: query {} (position {}) has no key at or before it", i, qpos[i * axes]));
      mp_real total = 0;
      for (std::int64_t j = 0; j < n_k; ++j) {
        if (masked && later(i, j)) continue;
        z[j] = exp(z[j] - top);
        total += z[j];
      }
      for (std::int64_t c = 0; c < dv; ++c) {
        mp_real acc = 0;
        for (std::int64_t j = 0; j < n_k; ++j) {
          if (masked && later(i, j)) continue;
          acc += z[j] * (shaw ? p.v(j, h * dv + c) + mp_real(rel.value[static_cast<size_t>(row(i, j) * dv + c)])
                              : p.v(j, h * dv + c));
        }
        const mp_real value = acc / total;
        auto& slot = out.data[static_cast<size_t>((i * heads + h) * dv + c)];
        if constexpr (std::is_same_v<T, mp_real>) slot = round_to_bits(value, out_bits);
        else slot = store_as<T>(value);
      }
    }
  return out;
}

// DeBERTa's three terms for the given inputs, [H, T, S] each, unscaled: content-to-content
// q.k, content-to-position (c2p) and position-to-content (p2c); attend divides their sum by sqrt(3 d).
std::array<tensor<mp_real>, 3> deberta_score_terms(const spec& s, const attend_inputs& in);

// Transformer-XL's terms for the given inputs, [H, T, S] each, unscaled (a + b + c + d = A_ij).
std::array<tensor<mp_real>, 4> txl_score_terms(const spec& s, const attend_inputs& in);

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
