// Transformer-XL's seeded weights, its four score terms and registry entry.
#include "pe/schemes/txl.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/attention_parts.hpp"
#include "pe/encode.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/absolute.hpp"

namespace pe {

txl_weights make_txl_weights(const spec& s) {
  txl_weights w{s.integer("heads"), s.integer("dim"), s.integer("r_dim"), {}, {}, {}};
  const auto seed = static_cast<std::uint64_t>(s.integer("seed"));
  const double sd = s.real("init_std");
  const std::int64_t width = w.heads * w.dim;
  w.w_r = learned_entries(seed, 0, w.r_dim * width, sd);
  w.u = learned_entries(seed, w.r_dim * width, width, sd);
  w.v = learned_entries(seed, w.r_dim * width + width, width, sd);
  return w;
}

namespace {

// (a), (b), (c), (d) unscaled, [H, T, S] each.
std::array<tensor<mp_real>, 4> terms_of(const spec& s, const attend_inputs& in, const detail::projected& p) {
  const std::int64_t n_q = p.q.rows(), n_k = p.k.rows(), heads = p.heads, d = p.dim;
  // The inputs' shapes before the weights: building them for a mismatched call is wasted work.
  if (s.integer("heads") != heads || s.integer("dim") != d) {
    throw input_error(fmt::format("attend: txl has heads={}, dim={} but q has {} heads of {}", s.integer("heads"), s.integer("dim"), heads, d));
  }
  detail::require_position_per_token(s, in, p);
  const txl_weights w = make_txl_weights(s);
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

scheme_info txl_info() {
  return {"txl", "encoding",
                 "Transformer-XL: score q.k + q.W_R R_(i-j) + u.k + v.W_R R_(i-j), R the [sin | cos] sinusoid of i - j; "
                 "seeded W_R, u, v",
                 {integer_param("heads", "attention heads", std::nullopt, 1, 4096),
                  integer_param("dim", "head dimension of q and k", std::nullopt, 1, 4096),
                  integer_param("r_dim", "dimension of the relative sinusoid R (TXL: d_model)", std::nullopt, 2, 65536),
                  init_std_param(0.02, "standard deviation of W_R, u and v"), seed_param()},
                 {"attend"},
                 [](const spec& s) {
                   if (s.integer("r_dim") % 2) {
                     throw spec_error(fmt::format("txl: r_dim={} is odd; the sinusoid needs sin/cos pairs", s.integer("r_dim")));
                   }
                   if (s.integer("r_dim") * s.integer("heads") * s.integer("dim") > (std::int64_t{1} << 26)) {
                     throw spec_error("txl: r_dim * heads * dim is more than 2^26 weights");
                   }
                 }};
}

scheme_behaviour txl_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::score_terms;
  b.heads = [](const spec& s) { return s.integer("heads"); };
  b.head_dim = [](const spec& s) { return s.integer("dim"); };
  // The four terms replace q.k: (b) + (c) + (d), scaled like q.k, act as a bias on the content score.
  b.score_terms = [](const spec& s, const attend_inputs& in, const detail::projected& p) {
    const auto t = terms_of(s, in, p);
    score_adjustment out;
    out.bias = tensor<mp_real>(t[0].shape);
    const mp_real root_d = sqrt(mp_real(p.dim));
    for (size_t e = 0; e < out.bias.data.size(); ++e) out.bias.data[e] = (t[1].data[e] + t[2].data[e] + t[3].data[e]) / root_d;
    return out;
  };
  b.named_score_terms = [](const spec& s, const attend_inputs& in) {
    auto t = txl_score_terms(s, in);
    return std::vector<named_tensor<mp_real>>{{"a", std::move(t[0])}, {"b", std::move(t[1])}, {"c", std::move(t[2])}, {"d", std::move(t[3])}};
  };
  b.gate_gaps = {{"attend", "the seeded W_R, u and v enter the scores; the gate's attend error model is not derived for them"}};
  return b;
}

const scheme_registration txl_registered{30, txl_info(), txl_behaviour()};

}  // namespace

std::array<tensor<mp_real>, 4> txl_score_terms(const spec& s, const attend_inputs& in) {
  return terms_of(s, in, detail::project(s, in));
}

}  // namespace pe
