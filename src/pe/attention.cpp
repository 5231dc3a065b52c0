// attend: the input side of each kind of scheme, the scores with a scheme's bias or terms, softmax, and the instantiations.
#include "pe/attention_parts.hpp"

#include <algorithm>

#include "pe/encode.hpp"

namespace pe {
namespace detail {
namespace {

std::vector<std::int64_t> default_positions(const std::vector<std::int64_t>& given, std::int64_t n) {
  if (!given.empty()) return given;
  std::vector<std::int64_t> out(static_cast<size_t>(n));
  for (std::int64_t t = 0; t < n; ++t) out[static_cast<size_t>(t)] = t;
  return out;
}

// x + pe as a wide [T, d_model] matrix (the absolute encodings' input side).
wide_matrix encoded_inputs(const spec& s, const attend_inputs& in) {
  require_shape(in.x, "x", 2);
  const std::int64_t n = in.x.shape[0], width = in.x.shape[1];
  const auto pos = default_positions(in.qpos, n);
  if (static_cast<std::int64_t>(pos.size()) != n) throw input_error(fmt::format("attend: x has {} rows but {} positions", n, pos.size()));
  const auto pe = encode<mp_real>(s, pos);
  if (pe.shape[1] != width) {
    throw input_error(fmt::format("attend: x has d_model={} but {} encodes {} components", width, s.scheme(), pe.shape[1]));
  }
  wide_matrix xs = to_wide(in.x, n, width);
  for (std::int64_t t = 0; t < n; ++t)
    for (std::int64_t c = 0; c < width; ++c) xs(t, c) += pe(t, c);
  return xs;
}

wide_matrix projection(const tensor<double>& w, const char* name, std::int64_t width, std::int64_t heads) {
  require_shape(w, name, 2);
  if (w.shape[0] != width || heads < 1 || w.shape[1] % heads) {
    throw input_error(fmt::format("attend: {} has shape [{}]; it needs [{}, heads * dim] with heads={}", name,
                                  fmt::join(w.shape, ", "), width, heads));
  }
  return to_wide(w, w.shape[0], w.shape[1]);
}

wide_matrix rows_of(const tensor<mp_real>& t) {
  const std::int64_t rows = t.shape[0], cols = t.shape[1] * t.shape[2];
  wide_matrix m(rows, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) m(r, c) = t.data[static_cast<size_t>(r * cols + c)];
  return m;
}

// The given positions (n * axes of them), or 0 .. n-1 when none are given (one axis only).
std::vector<std::int64_t> positions_or_order(const std::vector<std::int64_t>& given, std::int64_t n, std::int64_t axes,
                                             const char* name) {
  if (given.empty() && axes == 1) return default_positions(given, n);
  if (static_cast<std::int64_t>(given.size()) != n * axes) {
    throw input_error(fmt::format("attend: {} has {} values; {} tokens need {}", name, given.size(), n, n * axes));
  }
  return given;
}

projected project_absolute(const spec& s, const attend_inputs& in) {
  if (!in.q.shape.empty() || !in.k.shape.empty() || !in.v.shape.empty()) {
    throw input_error(fmt::format("attend: {} adds to the inputs; give x, wq, wk, wv and heads, not q, k, v", s.scheme()));
  }
  if (!in.kpos.empty() && in.kpos != in.qpos) {
    throw input_error(fmt::format("attend: {} is self-attention over qpos; kpos must be absent or equal", s.scheme()));
  }
  const wide_matrix xs = encoded_inputs(s, in);
  const std::int64_t width = xs.cols(), heads = in.heads;
  if (in.wq.shape.size() == 2 && in.wq.shape[1] == 0) throw input_error("attend: wq has 0 columns");
  const wide_matrix wq = projection(in.wq, "wq", width, heads), wk = projection(in.wk, "wk", width, heads),
                    wv = projection(in.wv, "wv", width, heads);
  if (wq.cols() != wk.cols()) throw input_error("attend: wq and wk need the same number of columns");
  return {xs * wq, xs * wk, xs * wv, heads, wq.cols() / heads, wv.cols() / heads};
}

// A rotary scheme's q or k: rotated by the plan for this call's positions, in its role (xPos
// scales queries and keys apart; every other plan ignores the role).
wide_matrix rotated(const spec& s, const tensor<double>& t, const std::vector<std::int64_t>& pos, const char* which, rotation_role role) {
  const std::int64_t axes = position_axes(s);
  if (static_cast<std::int64_t>(pos.size()) != t.shape[0] * axes) {
    throw input_error(fmt::format("attend: {} needs {} positions ({} per token)", which, t.shape[0] * axes, axes));
  }
  return rows_of(rotate_pairs<mp_real>(rotation_plan_of(s, call_seq_len(pos)), t, pos, role));
}

}  // namespace

// Everything attend needs before the softmax: q, k, v after the input side, the positions the
// mask compares, and the scheme's bias or terms. Outside the anonymous namespace: attend<T>'s
// lambdas capture it, and in a unity batch (PECHECK_UNITY) GCC warns of a type of an anonymous
// namespace in an included file held by a template of external linkage (-Wsubobject-linkage).
struct scored {
  projected p;
  std::vector<std::int64_t> qpos, kpos;
  std::int64_t axes;
  score_adjustment adjust;
};

namespace {

scored score_setup(const spec& s, const attend_inputs& in) {
  const auto& b = behaviour_of(s);
  const auto p = project(s, in);
  const std::int64_t n_q = p.q.rows(), n_k = p.k.rows(), heads = p.heads;
  if (n_k == 0) throw input_error("attend: there are no keys (k has 0 rows)");
  if (p.dim == 0) throw input_error("attend: q and k have head dim 0");
  if (!in.causal && b.causal_only)
    if (const auto why = b.causal_only(s)) throw input_error("attend: " + *why);
  score_adjustment adjust;
  if (b.kind == scheme_kind::bias) {
    if (s.integer("heads") != heads) {
      throw input_error(fmt::format("attend: {} has heads={} but q has {} heads", s.scheme(), s.integer("heads"), heads));
    }
    if (static_cast<std::int64_t>(in.qpos.size()) != n_q || static_cast<std::int64_t>(in.kpos.size()) != n_k) {
      throw input_error(fmt::format("attend: {} needs one qpos per query and one kpos per key", s.scheme()));
    }
    adjust.bias = b.bias.at<mp_real>()(s, in.qpos, in.kpos);
  }
  if (b.kind == scheme_kind::score_terms) adjust = b.score_terms(s, in, p);
  // The causal mask compares positions: the position itself, or for schemes with several
  // position columns the first (temporal) one. Absent positions are 0 .. n-1; absolute
  // encodings attend over one sequence, so their keys sit at the queries' positions.
  const std::int64_t axes = position_axes(s);
  auto qpos = positions_or_order(in.qpos, n_q, axes, "qpos");
  auto kpos = b.kind == scheme_kind::absolute ? qpos : positions_or_order(in.kpos, n_k, axes, "kpos");
  return {p, std::move(qpos), std::move(kpos), axes, std::move(adjust)};
}

}  // namespace

projected project(const spec& s, const attend_inputs& in) {
  const auto& ops = s.info().ops;
  if (std::find(ops.begin(), ops.end(), "attend") == ops.end()) {
    throw spec_error(fmt::format("{}: op 'attend' is not supported (ops: {})", s.scheme(), fmt::join(ops, ", ")));
  }
  const auto& b = behaviour_of(s);
  if (b.kind == scheme_kind::absolute) return project_absolute(s, in);
  if (!in.x.shape.empty() || !in.wq.shape.empty() || !in.wk.shape.empty() || !in.wv.shape.empty() || in.heads) {
    throw input_error(fmt::format("attend: {} takes q, k and v; x, wq, wk, wv and heads are for absolute encodings", s.scheme()));
  }
  require_shape(in.q, "q", 3);
  require_shape(in.k, "k", 3);
  require_shape(in.v, "v", 3);
  const std::int64_t heads = in.q.shape[1], d = in.q.shape[2];
  if (in.k.shape[1] != heads || in.k.shape[2] != d || in.v.shape[1] != heads || in.v.shape[0] != in.k.shape[0]) {
    throw input_error(fmt::format("attend: q [{}], k [{}], v [{}] need shapes [T, H, D], [S, H, D], [S, H, Dv]",
                                  fmt::join(in.q.shape, ", "), fmt::join(in.k.shape, ", "), fmt::join(in.v.shape, ", ")));
  }
  const std::int64_t dv = in.v.shape[2];
  const wide_matrix v = to_wide(in.v, in.v.shape[0], heads * dv);
  if (b.kind == scheme_kind::rotary) {
    const std::int64_t rotated_dim = *head_dim(s);
    if (d != rotated_dim) throw input_error(fmt::format("attend: q and k have head dim {} but {} rotates {}", d, s.scheme(), rotated_dim));
    return {rotated(s, in.q, in.qpos, "qpos", rotation_role::query), rotated(s, in.k, in.kpos, "kpos", rotation_role::key), v, heads, d, dv};
  }
  if (b.kind == scheme_kind::input_side) {  // absent positions are 0 .. n-1
    const std::int64_t axes = position_axes(s);
    const auto qpos = positions_or_order(in.qpos, in.q.shape[0], axes, "qpos"), kpos = positions_or_order(in.kpos, in.k.shape[0], axes, "kpos");
    return {rows_of(b.input_side(s, in.q, qpos, true)), rows_of(b.input_side(s, in.k, kpos, false)), v, heads, d, dv};
  }
  return {to_wide(in.q, in.q.shape[0], heads * d), to_wide(in.k, in.k.shape[0], heads * d), v, heads, d, dv};
}

void require_position_per_token(const spec& s, const attend_inputs& in, const projected& p) {
  if (static_cast<std::int64_t>(in.qpos.size()) != p.q.rows() || static_cast<std::int64_t>(in.kpos.size()) != p.k.rows()) {
    throw input_error(fmt::format("attend: {} needs one qpos per query and one kpos per key", s.scheme()));
  }
}

}  // namespace detail

template <class T>
tensor<T> attend(const spec& s, const attend_inputs& in) {
  const unsigned out_bits = mp_output_bits();
  mp_precision scope(std::is_same_v<T, mp_real> ? out_bits + 64 : 128);
  const auto sc = detail::score_setup(s, in);
  const auto& p = sc.p;
  const auto& b = sc.adjust.bias;
  const std::int64_t n_q = p.q.rows(), n_k = p.k.rows(), heads = p.heads, d = p.dim, dv = p.value_dim, axes = sc.axes;
  const auto later = [&](std::int64_t i, std::int64_t j) { return sc.kpos[j * axes] > sc.qpos[i * axes]; };
  const mp_real scale = 1 / sqrt(mp_real(sc.adjust.divisor * d));
  // Relative key and value rows (Shaw), added to k in the score and to v in the output.
  const bool relative = static_cast<bool>(sc.adjust.row);
  const bool masked = in.causal;
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
        if (relative) {
          const double* a = &sc.adjust.rel_key[static_cast<size_t>(sc.adjust.row(i, j) * d)];
          for (std::int64_t c = 0; c < d; ++c) dot += p.q(i, h * d + c) * mp_real(a[c]);
        }
        z[j] = dot * scale;
        if (!b.data.empty()) z[j] += b.data[static_cast<size_t>((h * n_q + i) * n_k + j)];
        if (!any || z[j] > top) top = z[j];
        any = true;
      }
      if (!any) throw input_error(fmt::format("attend: query {} (position {}) has no key at or before it", i, sc.qpos[i * axes]));
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
          acc += z[j] * (relative ? p.v(j, h * dv + c) + mp_real(sc.adjust.rel_value[static_cast<size_t>(sc.adjust.row(i, j) * dv + c)])
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

attend_parts attend_scores(const spec& s, const attend_inputs& in) {
  const auto sc = detail::score_setup(s, in);
  attend_parts out;
  out.queries = sc.p.q.rows(), out.keys = sc.p.k.rows(), out.heads = sc.p.heads, out.dim = sc.p.dim;
  out.value_dim = sc.p.value_dim, out.axes = sc.axes;
  const auto doubles = [](const detail::wide_matrix& m) {
    std::vector<double> v;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      for (Eigen::Index c = 0; c < m.cols(); ++c) v.push_back(m(r, c).convert_to<double>());
    return v;
  };
  out.q = doubles(sc.p.q), out.k = doubles(sc.p.k), out.v = doubles(sc.p.v);
  out.qpos = sc.qpos, out.kpos = sc.kpos;
  if (kind_of(s) == scheme_kind::bias)
    for (const auto& b : sc.adjust.bias.data) out.bias.push_back(b.convert_to<double>());
  return out;
}

std::vector<named_tensor<mp_real>> score_terms(const spec& s, const attend_inputs& in) {
  const auto& b = behaviour_of(s);
  if (!b.named_score_terms) throw spec_error(fmt::format("{}: op 'score_terms' needs a scheme with named score terms", s.scheme()));
  return b.named_score_terms(s, in);
}

four_terms absolute_score_terms(const spec& s, const attend_inputs& in) {
  if (!is_absolute(s)) throw spec_error(fmt::format("{}: the four-term expansion needs an absolute encoding", s.scheme()));
  const std::int64_t n = in.x.shape.at(0), width = in.x.shape.at(1), heads = in.heads;
  const detail::wide_matrix x = detail::to_wide(in.x, n, width);
  const detail::wide_matrix p = detail::encoded_inputs(s, in) - x;
  const detail::wide_matrix wq = detail::projection(in.wq, "wq", width, heads), wk = detail::projection(in.wk, "wk", width, heads);
  const std::int64_t d = wq.cols() / heads;
  const detail::wide_matrix xq = x * wq, xk = x * wk, pq = p * wq, pk = p * wk;
  const detail::wide_matrix qq = (x + p) * wq, kk = (x + p) * wk;
  four_terms out{tensor<mp_real>({heads, n, n}), tensor<mp_real>({heads, n, n}), tensor<mp_real>({heads, n, n}),
                 tensor<mp_real>({heads, n, n}), tensor<mp_real>({heads, n, n})};
  const auto dot = [&](const detail::wide_matrix& a, const detail::wide_matrix& b, std::int64_t i, std::int64_t j, std::int64_t h) {
    mp_real sum = 0;
    for (std::int64_t c = 0; c < d; ++c) sum += a(i, h * d + c) * b(j, h * d + c);
    return sum;
  };
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const auto at = static_cast<size_t>((h * n + i) * n + j);
        out.word_word.data[at] = dot(xq, xk, i, j, h);
        out.word_position.data[at] = dot(xq, pk, i, j, h);
        out.position_word.data[at] = dot(pq, xk, i, j, h);
        out.position_position.data[at] = dot(pq, pk, i, j, h);
        out.score.data[at] = dot(qq, kk, i, j, h);
      }
  return out;
}

template tensor<double> attend<double>(const spec&, const attend_inputs&);
template tensor<float> attend<float>(const spec&, const attend_inputs&);
template tensor<mp_real> attend<mp_real>(const spec&, const attend_inputs&);

}  // namespace pe
