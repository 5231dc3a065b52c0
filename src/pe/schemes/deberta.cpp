// DeBERTa's exact log buckets, seeded relative tables and registry entry.
#include "pe/schemes/deberta.hpp"

#include <algorithm>
#include <cmath>
#include <gmp.h>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/attention_parts.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/absolute.hpp"

namespace pe {

std::int64_t deberta_bucket(std::int64_t rel, std::int64_t buckets, std::int64_t max_position) {
  if (buckets <= 0) return rel;
  const std::int64_t mid = buckets / 2;
  const std::uint64_t a = rel < 0 ? 0 - static_cast<std::uint64_t>(rel) : static_cast<std::uint64_t>(rel);
  if (a <= static_cast<std::uint64_t>(mid)) return rel;
  // Smallest m >= (mid - 1) ln(a/mid) / ln((max_position - 1)/mid), i.e. the smallest m with
  // (max_position - 1)^m mid^(mid - 1) >= a^(mid - 1) mid^m. A binary64 estimate, then exact steps.
  const auto e = static_cast<unsigned long>(mid - 1);
  mpz_t lhs, rhs, t;
  mpz_inits(lhs, rhs, t, nullptr);
  const auto holds = [&](std::int64_t m) {
    mpz_ui_pow_ui(lhs, static_cast<unsigned long>(max_position - 1), static_cast<unsigned long>(m));
    mpz_ui_pow_ui(t, static_cast<unsigned long>(mid), e);
    mpz_mul(lhs, lhs, t);
    mpz_set_ui(rhs, 0);
    mpz_import(rhs, 1, -1, sizeof a, 0, 0, &a);
    mpz_pow_ui(rhs, rhs, e);
    mpz_ui_pow_ui(t, static_cast<unsigned long>(mid), static_cast<unsigned long>(m));
    mpz_mul(rhs, rhs, t);
    return mpz_cmp(lhs, rhs) >= 0;
  };
  const double estimate = static_cast<double>(e) * std::log(static_cast<double>(a) / static_cast<double>(mid)) /
                          std::log(static_cast<double>(max_position - 1) / static_cast<double>(mid));
  std::int64_t m = std::max<std::int64_t>(0, static_cast<std::int64_t>(std::ceil(std::min(estimate, 1e15))));
  while (m > 0 && holds(m - 1)) --m;
  while (!holds(m)) ++m;
  mpz_clears(lhs, rhs, t, nullptr);
  const std::int64_t magnitude = mid + m;
  return rel < 0 ? -magnitude : magnitude;
}

std::int64_t deberta_row(std::int64_t rel, const spec& s) {
  const std::int64_t buckets = s.integer("buckets");
  const std::int64_t span = buckets > 0 ? buckets : s.integer("k");
  const std::int64_t b = deberta_bucket(rel, buckets, s.integer("max_position"));
  // clamp(b + span, 0, 2 span - 1) without overflow for any int64 b.
  if (b >= span) return 2 * span - 1;
  if (b < -span) return 0;
  return b + span;
}

deberta_tables make_deberta_tables(const spec& s) {
  deberta_tables t;
  t.span = s.integer("buckets") > 0 ? s.integer("buckets") : s.integer("k");
  t.heads = s.integer("heads");
  t.dim = s.integer("dim");
  const std::int64_t entries = 2 * t.span * t.heads * t.dim;
  const auto seed = static_cast<std::uint64_t>(s.integer("seed"));
  t.key = learned_entries(seed, 0, entries, s.real("init_std"));
  t.query = learned_entries(seed, entries, entries, s.real("init_std"));
  return t;
}

namespace {

// DeBERTa's c2p and p2c (unscaled) [H, T, S]: q_i . K_r[row] and k_j . Q_r[row], row =
// deberta_row(qpos_i - kpos_j). HF uses the same row for both; the paper writes p2c with
// delta(j, i) -- pecheck follows the code, which pretrained weights were trained with.
std::array<tensor<mp_real>, 2> position_terms(const spec& s, const attend_inputs& in, const detail::projected& p) {
  const std::int64_t n_q = p.q.rows(), n_k = p.k.rows(), heads = p.heads, d = p.dim;
  // The inputs' shapes before the tables: building them for a mismatched call is wasted work.
  if (s.integer("heads") != heads || s.integer("dim") != d) {
    throw input_error(fmt::format("attend: deberta has heads={}, dim={} but q has {} heads of {}", s.integer("heads"), s.integer("dim"), heads, d));
  }
  const deberta_tables t = make_deberta_tables(s);
  detail::require_position_per_token(s, in, p);
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

scheme_info deberta_info() {
  return {"deberta", "encoding",
                 "DeBERTa disentangled attention: (q.k + q.K_r[row(i-j)] + k.Q_r[row(i-j)]) / sqrt(3 dim), row = "
                 "clamp(bucket(query - key) + span, 0, 2 span - 1); DeBERTa-v2 log buckets when buckets > 0",
                 {integer_param("k", "maximum relative distance (max_relative_positions); span when buckets = 0", std::nullopt, 1, 1 << 20),
                  integer_param("buckets", "position_buckets (DeBERTa-v2/v3: 256); 0 = no log buckets", 0, 0, 1 << 20),
                  integer_param("max_position", "max_position_embeddings of the log buckets", 512, 2, max_table_length),
                  integer_param("heads", "attention heads", 1, 1, 4096),
                  integer_param("dim", "head dimension", std::nullopt, 1, 4096),
                  init_std_param(0.02, "standard deviation of the relative tables"), seed_param()},
                 {"bucket", "attend"},
                 [](const spec& s) {
                   const std::int64_t b = s.integer("buckets");
                   if (b > 0 && (b < 4 || s.integer("max_position") - 1 <= b / 2)) {
                     throw spec_error(fmt::format("deberta: buckets={} needs buckets >= 4 and max_position - 1 > buckets/2 (max_position={})",
                                                  b, s.integer("max_position")));
                   }
                   const std::int64_t span = b > 0 ? b : s.integer("k");
                   if (2 * span * s.integer("heads") * s.integer("dim") > (std::int64_t{1} << 26)) {
                     throw spec_error("deberta: 2 * span * heads * dim is more than 2^26 table entries");
                   }
                 }};
}

scheme_behaviour deberta_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::score_terms;
  b.heads = [](const spec& s) { return s.integer("heads"); };
  b.head_dim = [](const spec& s) { return s.integer("dim"); };
  b.bucket = [](const spec& s, std::int64_t rel) { return deberta_bucket(rel, s.integer("buckets"), s.integer("max_position")); };
  // All three terms are divided by sqrt(3 d) (HF: scale_factor = 1 + c2p + p2c).
  b.score_terms = [](const spec& s, const attend_inputs& in, const detail::projected& p) {
    const auto t = position_terms(s, in, p);
    score_adjustment out;
    out.divisor = 3;
    out.bias = tensor<mp_real>(t[0].shape);
    const mp_real scale = 1 / sqrt(mp_real(3 * p.dim));
    for (size_t e = 0; e < out.bias.data.size(); ++e) out.bias.data[e] = (t[0].data[e] + t[1].data[e]) * scale;
    return out;
  };
  b.named_score_terms = [](const spec& s, const attend_inputs& in) {
    auto t = deberta_score_terms(s, in);
    return std::vector<named_tensor<mp_real>>{{"c2c", std::move(t[0])}, {"c2p", std::move(t[1])}, {"p2c", std::move(t[2])}};
  };
  b.gate_gaps = {{"attend", "the seeded relative tables enter the scores; the gate's attend error model is not derived for them"}};
  return b;
}

const scheme_registration deberta_registered{10, deberta_info(), deberta_behaviour()};

}  // namespace

std::array<tensor<mp_real>, 3> deberta_score_terms(const spec& s, const attend_inputs& in) {
  const auto p = detail::project(s, in);
  auto [c2p, p2c] = position_terms(s, in, p);
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

}  // namespace pe
