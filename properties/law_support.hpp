// Shared pieces of the law bodies: shapes a spec implies, drawn attention inputs, tensor norms and differences.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "pe/attention.hpp"
#include "pe/ops.hpp"
#include "pe/schemes/rope_nd.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"
#include "properties/backend.hpp"
#include "properties/fp_bounds.hpp"
#include "properties/generators.hpp"
#include "properties/property.hpp"

namespace pe::props {

// The head dim a RoPE-family spec rotates over (rope: dim; rope_nd: the sum of axes; mrope: dim)
// and how many of its leading dims are rotated (rope: rotary_dim; the axial forms: all).
std::int64_t rope_head_dim(const spec& s);
std::int64_t rope_rotated_dims(const spec& s);

// op_inputs for rotate/matrix: x [T, H, D] and T position rows.
op_inputs rotate_inputs(std::vector<double> x, std::int64_t tokens, std::int64_t heads, std::int64_t dim,
                        std::vector<std::int64_t> pos, std::int64_t axes);
// The dims as the rotation acts on them: every rotated pair (a, b), then every pass-through dim
// alone ({d, -1}). Each pair's norm and each pair's share of a dot product are separately
// invariant, so the laws judge them one by one: a fast-turning pair's error allowance (large at
// large positions on an implementation) cannot hide an error in a slow pair. The pairs come from
// the scheme's own rotation plan, so the laws and the rotation cannot drift apart.
std::vector<std::pair<std::int64_t, std::int64_t>> rotation_groups(const spec& s);
// The largest position a law of the rotation draws: the backend's largest (backend_max), at most
// 2^40, and for a scale by role (xPos) no further than where every scale stays within 2^(+-450),
// so that outputs and products stay normal in binary64 (proofs/rope.grad_adjoint.md).
std::int64_t rotation_position_limit(std::int64_t backend_max, const spec& s);
op_inputs position_inputs(std::vector<std::int64_t> pos, std::int64_t axes = 1);
op_inputs attend_op_inputs(attend_inputs in);

// Attention inputs a scheme takes, drawn for `tokens` tokens at positions 0 .. tokens-1 (every
// position column equal for the multi-axis forms): x, wq, wk, wv and heads for the absolute
// encodings; q, k, v with qpos = kpos otherwise. Dims follow the spec where it fixes them.
attend_inputs draw_attend(const spec& s, std::int64_t tokens, bool causal);
// The same inputs with token rows reordered: row t of the result is row order[t] of `in`.
// Positions stay where they are (they belong to the slots, not to the tokens).
attend_inputs reorder_tokens(const attend_inputs& in, const std::vector<std::int64_t>& order);
// Copies token `from`'s content rows onto token `to` (x, or q, k and v).
void copy_token(attend_inputs& in, std::int64_t from, std::int64_t to);

template <class T>
double max_abs(const tensor<T>& t) {
  double m = 0;
  for (const auto& v : t.data) m = std::max(m, std::abs(as_double(v)));
  return m;
}

// Largest |a - b| over the elements of row-major slices [a_off, a_off + n) and [b_off, b_off + n).
template <class T>
double max_abs_diff(const tensor<T>& a, std::int64_t a_off, const tensor<T>& b, std::int64_t b_off, std::int64_t n) {
  using std::abs;
  double m = 0;
  for (std::int64_t e = 0; e < n; ++e) {
    const T d = a.data[static_cast<size_t>(a_off + e)] - b.data[static_cast<size_t>(b_off + e)];
    m = std::max(m, as_double(T(abs(d))));
  }
  return m;
}
template <class T>
double max_abs_diff(const tensor<T>& a, const tensor<T>& b) {
  if (a.data.size() != b.data.size()) return INFINITY;
  return max_abs_diff(a, 0, b, 0, static_cast<std::int64_t>(a.data.size()));
}

// exp(z_j - max z) for a row of scores, and their sum: softmax(z)_j = w_j / total. Subtracting
// the maximum keeps every exponent <= 0, as attend does.
template <class T>
std::pair<std::vector<T>, T> softmax_weights(const std::vector<T>& z) {
  using std::exp;
  T top = z.at(0);
  for (const auto& v : z) top = std::max(top, v);
  std::vector<T> w(z.size());
  T total(0);
  for (size_t j = 0; j < z.size(); ++j) total += (w[j] = exp(z[j] - top));
  return {std::move(w), total};
}

// The ops as the laws call them: encode's pe, rotate's y (x [tokens, heads, D], rows of the
// spec's position columns), matrix's R at one row, inv_freq's frequencies and attention factor.
template <class T>
tensor<T> encoded(const backend<T>& b, const spec& s, std::vector<std::int64_t> pos) {
  return b.output("encode", s, position_inputs(std::move(pos)), "pe");
}
template <class T>
tensor<T> rotated(const backend<T>& b, const spec& s, std::vector<double> x, std::int64_t tokens, std::int64_t heads,
                  std::vector<std::int64_t> pos) {
  return b.output("rotate", s, rotate_inputs(std::move(x), tokens, heads, rope_head_dim(s), std::move(pos), position_axes(s)), "y");
}
template <class T>
tensor<T> matrix_at(const backend<T>& b, const spec& s, std::vector<std::int64_t> row) {
  return b.output("matrix", s, position_inputs(std::move(row), position_axes(s)), "R");
}
template <class T>
std::vector<T> frequencies(const backend<T>& b, const spec& s) {
  return b.output("inv_freq", s, op_inputs{}, "inv_freq").data;
}
template <class T>
T attention_factor(const backend<T>& b, const spec& s) {
  return b.output("inv_freq", s, op_inputs{}, "attention_factor").data.at(0);
}

// rotate's y with its per-element error allowance (backend::output_error).
template <class T>
typename backend<T>::bounded rotated_with_error(const backend<T>& b, const spec& s, std::vector<double> x, std::int64_t tokens,
                                                std::int64_t heads, std::vector<std::int64_t> pos) {
  return b.output_with_error("rotate", s, rotate_inputs(std::move(x), tokens, heads, rope_head_dim(s), std::move(pos), position_axes(s)), "y");
}

// |a - b| formed in T; 0 when a == b, two equal infinities included (an overflow to the same
// infinity on both sides is agreement, not a NaN residual).
template <class T>
double abs_difference(const T& a, const T& b) {
  using std::abs;
  return a == b ? 0.0 : as_double(T(abs(T(a - b))));
}

// A law judged part by part (a row, an element), each part holding iff residual <= bound, folded
// into one measure: the base bound is kept and the residual scaled so that residual / bound is
// the worst part's. Where every part's bound is the base bound (the reference: no output_error)
// the residual is the plain largest one, so the exactness ladder reads it unchanged. An exact
// law (base 0) reports the worst ratio against 1: a nonzero residual where a part's bound is 0
// (the reference) is infinitely over.
class worst_part {
 public:
  explicit worst_part(double base_bound) : base_(base_bound) {}
  void add(double residual, double bound) {
    if (std::isinf(bound)) return;  // anything is within (an output that overflowed to the same infinity)
    if (std::isnan(residual) || std::isnan(bound)) {
      ratio_ = INFINITY;
      return;
    }
    if (residual > 0) ratio_ = std::max(ratio_, bound > 0 ? residual / bound : INFINITY);
  }
  measure result(double scale) const {
    if (base_ > 0 && std::isfinite(base_)) return {ratio_ * base_, base_, scale};
    return {ratio_, 1, scale};
  }

 private:
  double base_;
  double ratio_ = 0;
};

// ---- the bias schemes ----

template <class T>
tensor<T> bias_of(const backend<T>& b, const spec& s, std::vector<std::int64_t> qpos, std::vector<std::int64_t> kpos) {
  op_inputs in;
  in.qpos = std::move(qpos);
  in.kpos = std::move(kpos);
  return b.output("bias", s, in, "bias");
}

inline std::vector<std::int64_t> draw_positions(std::int64_t n, std::int64_t max = std::int64_t{1} << 40) {
  std::vector<std::int64_t> out;
  for (std::int64_t e = 0; e < n; ++e) out.push_back(*gen_position(max));
  return out;
}

// Two distinct distances d1 < d2 in [0, top], top >= 1: two gen_position draws, sorted, equal
// ones moved one apart.
inline std::pair<std::int64_t, std::int64_t> two_distinct_distances(std::int64_t top) {
  auto d1 = *gen_position(top).as("d1"), d2 = *gen_position(top).as("d2");
  if (d1 > d2) std::swap(d1, d2);
  if (d1 == d2) {
    if (d2 < top) ++d2;
    else --d1;
  }
  return {d1, d2};
}

// A measure from an excess over per-entry allowances (see excess_over_two_roundings): it holds
// iff the excess is <= 1; the ladder sees excess * 2u, which falls like 2^-p for an identity.
template <class T>
measure in_units_of_two_roundings(double excess) {
  const double unit = 2 * unit_roundoff<T>();
  return {excess * unit, unit, 1};
}

inline std::vector<std::int64_t> shifted(std::vector<std::int64_t> v, std::int64_t t) {
  for (auto& p : v) p += t;
  return v;
}

// bias(qpos + t, kpos + t) = bias(qpos, kpos) for the bias schemes whose bias reads distances
// only (ALiBi, T5, KERPLE).
template <class T>
struct bias_translation_invariance {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t top = b.max_position();
    const auto qpos = draw_positions(*rc::gen::inRange<std::int64_t>(1, 5).as("queries"), top), kpos = draw_positions(*rc::gen::inRange<std::int64_t>(1, 5).as("keys"), top);
    const auto highest = std::max(*std::max_element(qpos.begin(), qpos.end()), *std::max_element(kpos.begin(), kpos.end()));
    const auto t = *gen_position(top - highest).as("t");  // every shifted position stays within max_position()
    op_inputs in, moved;
    in.qpos = qpos, in.kpos = kpos, moved.qpos = shifted(qpos, t), moved.kpos = shifted(kpos, t);
    const auto b1 = b.output_with_error("bias", s, in, "bias"), b2 = b.output_with_error("bias", s, moved, "bias");
    if (b1.value.data.size() != b2.value.data.size()) return {INFINITY, 1, 1};
    // Both are the same exact value rounded once: within 2u of each entry's magnitude, plus the
    // outputs' own errors (output_error). Reported in units of two roundings.
    const double unit = 2 * unit_roundoff<T>();
    worst_part worst(unit);
    for (size_t e = 0; e < b1.value.data.size(); ++e) {
      const double scale = std::max(std::abs(as_double(b1.value.data[e])), std::abs(as_double(b2.value.data[e])));
      worst.add(abs_difference(b1.value.data[e], b2.value.data[e]), unit * scale + b1.error[e] + b2.error[e]);
    }
    return worst.result(1);
  }
};

// A value tensor as T: x itself (exact in binary64, and so in MPFR at >= 53 bits).
template <class T>
T exact(double v) {
  return T(v);
}

}  // namespace pe::props
