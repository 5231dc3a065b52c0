// attend's input side (projections, rotations, biases), the four-term expansion, and the instantiations.
#include "pe/attention.hpp"

#include "pe/ops.hpp"

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

bool is_rope_family(const spec& s) { return s.scheme() == "rope" || s.scheme() == "rope_nd" || s.scheme() == "mrope"; }

}  // namespace

std::vector<std::int64_t> positions_or_order(const std::vector<std::int64_t>& given, std::int64_t n, std::int64_t axes,
                                             const char* name) {
  if (given.empty() && axes == 1) return default_positions(given, n);
  if (static_cast<std::int64_t>(given.size()) != n * axes) {
    throw input_error(fmt::format("attend: {} has {} values; {} tokens need {}", name, given.size(), n, n * axes));
  }
  return given;
}

projected project(const spec& s, const attend_inputs& in) {
  const auto& ops = s.info().ops;
  if (std::find(ops.begin(), ops.end(), "attend") == ops.end()) {
    throw spec_error(fmt::format("{}: op 'attend' is not supported (ops: {})", s.scheme(), fmt::join(ops, ", ")));
  }
  const bool gave_qkv = !in.q.shape.empty() || !in.k.shape.empty() || !in.v.shape.empty();
  const bool gave_x = !in.x.shape.empty() || !in.wq.shape.empty() || !in.wk.shape.empty() || !in.wv.shape.empty() || in.heads;
  if (is_absolute(s)) {
    if (gave_qkv) {
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
  if (gave_x) throw input_error(fmt::format("attend: {} takes q, k and v; x, wq, wk, wv and heads are for absolute encodings", s.scheme()));
  require_shape(in.q, "q", 3);
  require_shape(in.k, "k", 3);
  require_shape(in.v, "v", 3);
  const std::int64_t heads = in.q.shape[1], d = in.q.shape[2];
  if (in.k.shape[1] != heads || in.k.shape[2] != d || in.v.shape[1] != heads || in.v.shape[0] != in.k.shape[0]) {
    throw input_error(fmt::format("attend: q [{}], k [{}], v [{}] need shapes [T, H, D], [S, H, D], [S, H, Dv]",
                                  fmt::join(in.q.shape, ", "), fmt::join(in.k.shape, ", "), fmt::join(in.v.shape, ", ")));
  }
  const std::int64_t dv = in.v.shape[2];
  if (is_rope_family(s)) {
    const std::int64_t axes = position_axes(s);
    const std::int64_t rotated = s.scheme() == "rope_nd" ? rope_nd_plan(s).dim : s.integer("dim");
    if (d != rotated) throw input_error(fmt::format("attend: q and k have head dim {} but {} rotates {}", d, s.scheme(), rotated));
    const auto rotate = [&](const tensor<double>& t, const std::vector<std::int64_t>& pos, const char* which) {
      if (static_cast<std::int64_t>(pos.size()) != t.shape[0] * axes) {
        throw input_error(fmt::format("attend: {} needs {} positions ({} per token)", which, t.shape[0] * axes, axes));
      }
      op_inputs oi;
      oi.pos = pos;
      oi.pos_axes = axes;
      oi.x = t;
      return rows_of(rope_op<mp_real>("rotate", s, oi)[0].value);
    };
    return {rotate(in.q, in.qpos, "qpos"), rotate(in.k, in.kpos, "kpos"), to_wide(in.v, in.v.shape[0], heads * dv), heads, d, dv};
  }
  return {to_wide(in.q, in.q.shape[0], heads * d), to_wide(in.k, in.k.shape[0], heads * d),
          to_wide(in.v, in.v.shape[0], heads * dv), heads, d, dv};
}

tensor<mp_real> bias(const spec& s, const attend_inputs& in, std::int64_t heads) {
  if (s.scheme() != "alibi" && s.scheme() != "t5") return {};
  if (s.integer("heads") != heads) {
    throw input_error(fmt::format("attend: {} has heads={} but q has {} heads", s.scheme(), s.integer("heads"), heads));
  }
  if (static_cast<std::int64_t>(in.qpos.size()) != in.q.shape[0] || static_cast<std::int64_t>(in.kpos.size()) != in.k.shape[0]) {
    throw input_error(fmt::format("attend: {} needs one qpos per query and one kpos per key", s.scheme()));
  }
  return s.scheme() == "alibi" ? alibi_bias<mp_real>(s, in.qpos, in.kpos) : t5_bias<mp_real>(s, in.qpos, in.kpos);
}

std::array<tensor<mp_real>, 4> txl_terms(const spec& s, const attend_inputs& in, const projected& p) {
  const txl_weights w = make_txl_weights(s);
  const std::int64_t n_q = p.q.rows(), n_k = p.k.rows(), heads = p.heads, d = p.dim;
  if (w.heads != heads || w.dim != d) {
    throw input_error(fmt::format("attend: txl has heads={}, dim={} but q has {} heads of {}", w.heads, w.dim, heads, d));
  }
  if (static_cast<std::int64_t>(in.qpos.size()) != n_q || static_cast<std::int64_t>(in.kpos.size()) != n_k) {
    throw input_error("attend: txl needs one qpos per query and one kpos per key");
  }
  const spec sinusoid = parse_spec(fmt::format("sinusoidal(dim={}, layout=concat)", w.r_dim));
  const std::int64_t width = heads * d;
  std::array<tensor<mp_real>, 4> t{tensor<mp_real>({heads, n_q, n_k}), tensor<mp_real>({heads, n_q, n_k}),
                                   tensor<mp_real>({heads, n_q, n_k}), tensor<mp_real>({heads, n_q, n_k})};
  for (std::int64_t i = 0; i < n_q; ++i)
    for (std::int64_t j = 0; j < n_k; ++j) {
      std::int64_t distance = 0;
      if (__builtin_sub_overflow(in.qpos[i], in.kpos[j], &distance)) {
        throw input_error(fmt::format("attend: qpos {} - kpos {} does not fit in 64 bits", in.qpos[i], in.kpos[j]));
      }
      const auto r = encode<mp_real>(sinusoid, std::vector<std::int64_t>{distance});
      std::vector<mp_real> wr(static_cast<size_t>(width));  // W_R R_(i-j)
      for (std::int64_t c = 0; c < width; ++c) {
        mp_real sum = 0;
        for (std::int64_t e = 0; e < w.r_dim; ++e) sum += r.data[static_cast<size_t>(e)] * mp_real(w.w_r[static_cast<size_t>(e * width + c)]);
        wr[static_cast<size_t>(c)] = sum;
      }
      for (std::int64_t h = 0; h < heads; ++h) {
        mp_real a = 0, b = 0, c = 0, dd = 0;
        for (std::int64_t e = 0; e < d; ++e) {
          const std::int64_t col = h * d + e;
          a += p.q(i, col) * p.k(j, col);
          b += p.q(i, col) * wr[static_cast<size_t>(col)];
          c += mp_real(w.u[static_cast<size_t>(col)]) * p.k(j, col);
          dd += mp_real(w.v[static_cast<size_t>(col)]) * wr[static_cast<size_t>(col)];
        }
        const auto at = static_cast<size_t>((h * n_q + i) * n_k + j);
        t[0].data[at] = a, t[1].data[at] = b, t[2].data[at] = c, t[3].data[at] = dd;
      }
    }
  return t;
}

std::array<tensor<mp_real>, 2> deberta_terms(const spec& s, const attend_inputs& in, const projected& p) {
  const deberta_tables t = make_deberta_tables(s);
  const std::int64_t n_q = p.q.rows(), n_k = p.k.rows(), heads = p.heads, d = p.dim;
  if (t.heads != heads || t.dim != d) {
    throw input_error(fmt::format("attend: deberta has heads={}, dim={} but q has {} heads of {}", t.heads, t.dim, heads, d));
  }
  if (static_cast<std::int64_t>(in.qpos.size()) != n_q || static_cast<std::int64_t>(in.kpos.size()) != n_k) {
    throw input_error("attend: deberta needs one qpos per query and one kpos per key");
  }
  const std::int64_t width = heads * d;
  std::array<tensor<mp_real>, 2> out{tensor<mp_real>({heads, n_q, n_k}), tensor<mp_real>({heads, n_q, n_k})};
  for (std::int64_t i = 0; i < n_q; ++i)
    for (std::int64_t j = 0; j < n_k; ++j) {
      std::int64_t rel = 0;  // query - key, saturated (every far distance clamps to an end row)
      if (__builtin_sub_overflow(in.qpos[i], in.kpos[j], &rel)) {
        rel = in.qpos[i] > in.kpos[j] ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
      }
      const std::int64_t row = deberta_row(rel, s);
      for (std::int64_t h = 0; h < heads; ++h) {
        mp_real c2p = 0, p2c = 0;
        for (std::int64_t e = 0; e < d; ++e) {
          const auto col = static_cast<size_t>(row * width + h * d + e);
          c2p += p.q(i, h * d + e) * mp_real(t.key[col]);
          p2c += p.k(j, h * d + e) * mp_real(t.query[col]);
        }
        const auto at = static_cast<size_t>((h * n_q + i) * n_k + j);
        out[0].data[at] = c2p;
        out[1].data[at] = p2c;
      }
    }
  return out;
}

}  // namespace detail

std::array<tensor<mp_real>, 3> deberta_score_terms(const spec& s, const attend_inputs& in) {
  const auto p = detail::project(s, in);
  auto [c2p, p2c] = detail::deberta_terms(s, in, p);
  tensor<mp_real> c2c(c2p.shape);
  const std::int64_t heads = p.heads, n_q = p.q.rows(), n_k = p.k.rows(), d = p.dim;
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n_q; ++i)
      for (std::int64_t j = 0; j < n_k; ++j) {
        mp_real dot = 0;
        for (std::int64_t e = 0; e < d; ++e) dot += p.q(i, h * d + e) * p.k(j, h * d + e);
        c2c.data[static_cast<size_t>((h * n_q + i) * n_k + j)] = dot;
      }
  return {std::move(c2c), std::move(c2p), std::move(p2c)};
}

std::array<tensor<mp_real>, 4> txl_score_terms(const spec& s, const attend_inputs& in) {
  return detail::txl_terms(s, in, detail::project(s, in));
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
