// Tests for src/pe/attention.hpp: attend against a direct formula, the four-term expansion, and the symmetries it must show.
#include "pe/attention.hpp"
#include "pe/schemes/absolute.hpp"
#include "pe/schemes/shaw.hpp"
#include "pe/schemes/t5.hpp"
#include "pe/schemes/txl.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include "pe/ops.hpp"

namespace {

using pe::mp_real;
using pe::parse_spec;

pe::tensor<double> random_tensor(std::vector<std::int64_t> shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  pe::tensor<double> t(std::move(shape));
  for (auto& v : t.data) v = u(rng);
  return t;
}

pe::attend_inputs qkv(std::int64_t tokens, std::int64_t heads, std::int64_t dim, std::uint64_t seed) {
  pe::attend_inputs in;
  in.q = random_tensor({tokens, heads, dim}, seed);
  in.k = random_tensor({tokens, heads, dim}, seed + 1);
  in.v = random_tensor({tokens, heads, dim}, seed + 2);
  for (std::int64_t t = 0; t < tokens; ++t) in.qpos.push_back(t), in.kpos.push_back(t);
  return in;
}

// softmax(q k^T / sqrt(d)) v written out directly (no max subtraction) at 256 bits.
mp_real direct(const pe::attend_inputs& in, std::int64_t i, std::int64_t h, std::int64_t c, const std::vector<mp_real>* bias = nullptr) {
  const std::int64_t n = in.k.shape[0], heads = in.q.shape[1], d = in.q.shape[2];
  std::vector<mp_real> w(static_cast<size_t>(n));
  mp_real total = 0, acc = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    if (in.causal && in.kpos[j] > in.qpos[i]) continue;
    mp_real dot = 0;
    for (std::int64_t e = 0; e < d; ++e) dot += mp_real(in.q.data[(i * heads + h) * d + e]) * mp_real(in.k.data[(j * heads + h) * d + e]);
    mp_real z = dot / sqrt(mp_real(d));
    if (bias) z += (*bias)[static_cast<size_t>(j)];
    w[j] = exp(z);
    total += w[j];
    acc += w[j] * mp_real(in.v.data[(j * heads + h) * d + c]);
  }
  return acc / total;
}

TEST(attend, none_matches_the_direct_formula) {
  pe::mp_precision scope(256);
  auto in = qkv(5, 2, 4, 1);
  for (const bool causal : {false, true}) {
    in.causal = causal;
    const auto out = pe::attend<mp_real>(parse_spec("none()"), in);
    EXPECT_EQ(out.shape, (std::vector<std::int64_t>{5, 2, 4}));
    for (std::int64_t i = 0; i < 5; ++i)
      for (std::int64_t h = 0; h < 2; ++h)
        for (std::int64_t c = 0; c < 4; ++c) {
          EXPECT_LT(abs(out.data[(i * 2 + h) * 4 + c] - direct(in, i, h, c)), mp_real("1e-70")) << causal << i << h << c;
        }
  }
}

TEST(attend, binary64_is_the_wide_value_rounded_once) {
  auto in = qkv(6, 2, 8, 2);
  const auto fast = pe::attend<double>(parse_spec("rope(dim=8, scaling=yarn(factor=4, original_max=64))"), in);
  pe::mp_precision scope(256);
  const auto exact = pe::attend<mp_real>(parse_spec("rope(dim=8, scaling=yarn(factor=4, original_max=64))"), in);
  for (size_t k = 0; k < exact.data.size(); ++k) {
    // Computed at 128 bits and rounded once; a weighted mean of v in [-1, 1] can cancel, so the
    // bound is half an ulp of the result plus 2^-100 of max |v| for the 128-bit error.
    const double e = std::fabs(fast.data[k] - static_cast<double>(exact.data[k]));
    EXPECT_LE(e, std::ldexp(std::fabs(fast.data[k]), -53) + std::ldexp(1.0, -100)) << k;
  }
}

// Seed 004's proof, executed: without position, permuting the tokens permutes the outputs.
TEST(attend, plain_attention_is_permutation_equivariant) {
  pe::mp_precision scope(256);
  const auto in = qkv(4, 1, 4, 3);
  const std::vector<std::int64_t> perm{2, 0, 3, 1};
  pe::attend_inputs shuffled = in;
  for (std::int64_t t = 0; t < 4; ++t)
    for (std::int64_t e = 0; e < 4; ++e) {
      shuffled.q.data[t * 4 + e] = in.q.data[perm[t] * 4 + e];
      shuffled.k.data[t * 4 + e] = in.k.data[perm[t] * 4 + e];
      shuffled.v.data[t * 4 + e] = in.v.data[perm[t] * 4 + e];
    }
  const auto out = pe::attend<mp_real>(parse_spec("none()"), in);
  const auto out_shuffled = pe::attend<mp_real>(parse_spec("none()"), shuffled);
  for (std::int64_t t = 0; t < 4; ++t)
    for (std::int64_t e = 0; e < 4; ++e) EXPECT_LT(abs(out_shuffled.data[t * 4 + e] - out.data[perm[t] * 4 + e]), mp_real("1e-70"));
  // With RoPE (positions kept in place) the same shuffle does not permute the outputs.
  const auto r = pe::attend<mp_real>(parse_spec("rope(dim=4)"), in);
  const auto r_shuffled = pe::attend<mp_real>(parse_spec("rope(dim=4)"), shuffled);
  mp_real largest = 0;
  for (std::int64_t t = 0; t < 4; ++t)
    for (std::int64_t e = 0; e < 4; ++e) largest = std::max(largest, abs(r_shuffled.data[t * 4 + e] - r.data[perm[t] * 4 + e]));
  EXPECT_GT(largest, mp_real("1e-3"));
}

// RoPE, ALiBi and T5 see only relative positions: shifting every position leaves attend unchanged.
TEST(attend, relative_schemes_are_shift_invariant) {
  pe::mp_precision scope(256);
  for (const char* text : {"rope(dim=4)", "alibi(heads=2)", "t5(heads=2, seed=3)", "mrope(dim=4, sections=[1, 1, 0])"}) {
    const pe::spec s = parse_spec(text);
    const std::int64_t axes = pe::position_axes(s);
    auto in = qkv(4, s.scheme() == "rope" || s.scheme() == "mrope" ? 1 : 2, 4, 4);
    in.causal = true;
    const auto expand = [&](std::int64_t shift) {
      std::vector<std::int64_t> pos;
      for (std::int64_t t = 0; t < 4; ++t)
        for (std::int64_t a = 0; a < axes; ++a) pos.push_back(t * 3 + shift);
      return pos;
    };
    in.qpos = in.kpos = expand(0);
    const auto base = pe::attend<mp_real>(s, in);
    in.qpos = in.kpos = expand(1000003);
    const auto shifted = pe::attend<mp_real>(s, in);
    for (size_t k = 0; k < base.data.size(); ++k) EXPECT_LT(abs(base.data[k] - shifted.data[k]), mp_real("1e-60")) << text << " " << k;
  }
}

TEST(attend, alibi_adds_its_bias_to_the_scores) {
  pe::mp_precision scope(256);
  auto in = qkv(3, 1, 4, 5);
  in.causal = true;
  const pe::spec s = parse_spec("alibi(heads=1)");
  const auto out = pe::attend<mp_real>(s, in);
  for (std::int64_t i = 0; i < 3; ++i) {
    std::vector<mp_real> bias;
    for (std::int64_t j = 0; j < 3; ++j) bias.push_back(ldexp(mp_real(j - i), -8));  // slope 2^-8 for one head
    for (std::int64_t c = 0; c < 4; ++c) EXPECT_LT(abs(out.data[i * 4 + c] - direct(in, i, 0, c, &bias)), mp_real("1e-70"));
  }
}

TEST(attend, four_terms_sum_to_the_score) {
  pe::mp_precision scope(256);
  pe::attend_inputs in;
  in.x = random_tensor({5, 6}, 6);
  in.wq = random_tensor({6, 8}, 7);
  in.wk = random_tensor({6, 8}, 8);
  in.wv = random_tensor({6, 8}, 9);
  in.heads = 2;
  in.qpos = {0, 1, 2, 3, 40000};
  for (const char* text : {"sinusoidal(dim=6)", "learned(dim=6, max_len=50000)", "integer(dim=6)"}) {
    const auto t = pe::absolute_score_terms(parse_spec(text), in);
    for (size_t k = 0; k < t.score.data.size(); ++k) {
      const mp_real sum = t.word_word.data[k] + t.word_position.data[k] + t.position_word.data[k] + t.position_position.data[k];
      EXPECT_LT(abs(sum - t.score.data[k]), abs(t.score.data[k]) * mp_real("1e-70")) << text << " " << k;
    }
    // The position terms matter: without them the score is word.word alone.
    EXPECT_NE(t.position_position.data[6], 0);  // head 0, query 1, key 1 (position 0 is zero for integer())
  }
  // attend runs the absolute path: q = (x + pe) W_q, self-attention over qpos.
  const auto out = pe::attend<mp_real>(parse_spec("sinusoidal(dim=6)"), in);
  EXPECT_EQ(out.shape, (std::vector<std::int64_t>{5, 2, 4}));
}

TEST(attend, errors_name_the_problem) {
  auto in = qkv(2, 1, 4, 10);
  in.causal = true;
  in.qpos = {0, 1};
  in.kpos = {5, 6};
  EXPECT_THROW(
      {
        try {
          pe::attend<double>(parse_spec("none()"), in);
        } catch (const pe::input_error& e) {
          EXPECT_STREQ(e.what(), "attend: query 0 (position 0) has no key at or before it");
          throw;
        }
      },
      pe::input_error);
  auto bad = qkv(2, 2, 4, 11);
  bad.causal = true;
  try {
    pe::attend<double>(parse_spec("alibi(heads=4)"), bad);
    ADD_FAILURE() << "no error";
  } catch (const pe::input_error& e) {
    EXPECT_STREQ(e.what(), "attend: alibi has heads=4 but q has 2 heads");
  }
  try {
    pe::attend<double>(parse_spec("binary(dim=3)"), bad);
    ADD_FAILURE() << "no error";
  } catch (const pe::input_error& e) {
    EXPECT_STREQ(e.what(), "attend: binary adds to the inputs; give x, wq, wk, wv and heads, not q, k, v");
  }
  // Found by review: each of these crashed, returned NaN or silently misread its inputs.
  const auto message = [](const char* text, const pe::attend_inputs& in) {
    try {
      pe::attend<double>(parse_spec(text), in);
    } catch (const pe::input_error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  pe::attend_inputs empty_keys;
  empty_keys.q = random_tensor({1, 1, 2}, 1);
  empty_keys.k = pe::tensor<double>({0, 1, 2});
  empty_keys.v = pe::tensor<double>({0, 1, 1});
  EXPECT_EQ(message("none()", empty_keys), "attend: there are no keys (k has 0 rows)");
  pe::attend_inputs no_dim;
  no_dim.q = pe::tensor<double>({1, 1, 0});
  no_dim.k = pe::tensor<double>({2, 1, 0});
  no_dim.v = random_tensor({2, 1, 1}, 2);
  EXPECT_EQ(message("none()", no_dim), "attend: q and k have head dim 0");
  auto ahead = qkv(1, 1, 2, 3);
  ahead.kpos = {0};
  ahead.qpos = {0};
  EXPECT_EQ(message("alibi(heads=1)", ahead),
            "attend: alibi(causal=true) is the decoder form; set \"causal\": true in the input, or use alibi(causal=false)");
  EXPECT_EQ(message("rope(dim=4)", qkv(2, 1, 2, 4)), "attend: q and k have head dim 2 but rope rotates 4");
  pe::attend_inputs absolute;
  absolute.x = random_tensor({2, 2}, 5);
  absolute.wq = absolute.wk = absolute.wv = random_tensor({2, 2}, 6);
  absolute.heads = 1;
  absolute.qpos = {0, 1};
  absolute.kpos = {5, 0};
  EXPECT_EQ(message("integer(dim=2)", absolute), "attend: integer is self-attention over qpos; kpos must be absent or equal");
  absolute.kpos.clear();
  absolute.causal = true;
  EXPECT_EQ(message("integer(dim=2)", absolute), "(no error)");  // keys at the queries' positions
}

TEST(t5_bias, saturates_distances_beyond_int64) {
  const pe::spec s = pe::parse_spec("t5()");
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min(), hi = std::numeric_limits<std::int64_t>::max();
  const auto far_ahead = pe::t5_bias<double>(s, std::vector<std::int64_t>{lo}, std::vector<std::int64_t>{hi});
  const auto far_behind = pe::t5_bias<double>(s, std::vector<std::int64_t>{hi}, std::vector<std::int64_t>{lo});
  EXPECT_EQ(far_ahead.data[0], pe::learned_entry(0, 31, 0.05));   // bucket 31: the last positive one
  EXPECT_EQ(far_behind.data[0], pe::learned_entry(0, 15, 0.05));  // bucket 15: the last negative one
}

}  // namespace

namespace {

// Shaw et al. 2018 written out directly: e_ij = q_i . (k_j + aK_r) / sqrt(d), out_i = sum_j
// alpha_ij (v_j + aV_r), r = clip(kpos_j - qpos_i, -k, k) + k, tables from learned_entry.
TEST(attend, shaw_matches_the_paper_formula) {
  pe::mp_precision scope(256);
  const std::int64_t k = 2, d = 3, n = 5, heads = 2;
  auto in = qkv(n, heads, d, 12);
  in.qpos = {0, 1, 2, 10, 20};
  in.kpos = {0, 1, 2, 10, 20};
  const pe::spec s = parse_spec("shaw(k=2, dim=3, seed=5)");
  const auto out = pe::attend<mp_real>(s, in);
  const auto table = [&](std::int64_t which, std::int64_t r, std::int64_t c) {
    return mp_real(pe::learned_entry(5, which * (2 * k + 1) * d + r * d + c, 0.02));
  };
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n; ++i) {
      std::vector<mp_real> w(n);
      mp_real total = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t r = std::clamp<std::int64_t>(in.kpos[j] - in.qpos[i], -k, k) + k;
        mp_real dot = 0;
        for (std::int64_t c = 0; c < d; ++c) {
          dot += mp_real(in.q.data[(i * heads + h) * d + c]) * (mp_real(in.k.data[(j * heads + h) * d + c]) + table(0, r, c));
        }
        w[j] = exp(dot / sqrt(mp_real(d)));
        total += w[j];
      }
      for (std::int64_t c = 0; c < d; ++c) {
        mp_real acc = 0;
        for (std::int64_t j = 0; j < n; ++j) {
          const std::int64_t r = std::clamp<std::int64_t>(in.kpos[j] - in.qpos[i], -k, k) + k;
          acc += w[j] * (mp_real(in.v.data[(j * heads + h) * d + c]) + table(1, r, c));
        }
        EXPECT_LT(abs(out.data[(i * heads + h) * d + c] - acc / total), mp_real("1e-70")) << h << i << c;
      }
    }
  // Shift invariance, and clipping: moving the far keys further away changes nothing.
  auto far = in;
  far.qpos = {100, 101, 102, 110, 120};
  far.kpos = {100, 101, 102, 110, 120};
  const auto shifted = pe::attend<mp_real>(s, far);
  far.qpos = {0, 1, 2, 50, 900};
  far.kpos = {0, 1, 2, 50, 900};
  const auto spread = pe::attend<mp_real>(s, far);
  for (size_t e = 0; e < out.data.size(); ++e) {
    EXPECT_LT(abs(out.data[e] - shifted.data[e]), mp_real("1e-70")) << e;
    EXPECT_LT(abs(out.data[e] - spread.data[e]), mp_real("1e-70")) << e;
  }
  EXPECT_EQ(pe::shaw_row(std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), 4), 0);
  EXPECT_EQ(pe::shaw_row(std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min(), 4), 8);
}

}  // namespace

namespace {

// Transformer-XL written out: R_(i-j) = [sin((i-j) w_e) | cos((i-j) w_e)], w_e = 10000^(-2e/r),
// and the four terms q.k, q.W_R R, u.k, v.W_R R with W_R, u, v from learned_entry in that order.
TEST(attend, transformer_xl_terms_match_the_paper) {
  pe::mp_precision scope(256);
  const std::int64_t heads = 2, d = 2, r_dim = 4, n = 3;
  auto in = qkv(n, heads, d, 21);
  in.qpos = {5, 6, 9};
  in.kpos = {5, 6, 9};
  const pe::spec s = parse_spec("txl(heads=2, dim=2, r_dim=4, seed=9)");
  const auto terms = pe::txl_score_terms(s, in);
  const std::int64_t width = heads * d;
  const auto weight = [&](std::int64_t index) { return mp_real(pe::learned_entry(9, index, 0.02)); };
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      const mp_real dist(in.qpos[i] - in.kpos[j]);
      std::vector<mp_real> r;
      for (std::int64_t e = 0; e < r_dim / 2; ++e) r.push_back(sin(dist * pow(mp_real(10000), mp_real(-2 * e) / r_dim)));
      for (std::int64_t e = 0; e < r_dim / 2; ++e) r.push_back(cos(dist * pow(mp_real(10000), mp_real(-2 * e) / r_dim)));
      for (std::int64_t h = 0; h < heads; ++h) {
        mp_real a = 0, b = 0, c = 0, dd = 0;
        for (std::int64_t e = 0; e < d; ++e) {
          const std::int64_t col = h * d + e;
          mp_real wr = 0;
          for (std::int64_t f = 0; f < r_dim; ++f) wr += r[f] * weight(f * width + col);
          const mp_real q(in.q.data[(i * heads + h) * d + e]), k(in.k.data[(j * heads + h) * d + e]);
          a += q * k;
          b += q * wr;
          c += weight(r_dim * width + col) * k;
          dd += weight(r_dim * width + width + col) * wr;
        }
        const auto at = static_cast<size_t>((h * n + i) * n + j);
        EXPECT_LT(abs(terms[0].data[at] - a), mp_real("1e-70"));
        EXPECT_LT(abs(terms[1].data[at] - b), mp_real("1e-70"));
        EXPECT_LT(abs(terms[2].data[at] - c), mp_real("1e-70"));
        EXPECT_LT(abs(terms[3].data[at] - dd), mp_real("1e-70"));
      }
    }
  // attend is softmax((a + b + c + d) / sqrt(d)) v, and depends on positions only through i - j.
  const auto out = pe::attend<mp_real>(s, in);
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n; ++i) {
      std::vector<mp_real> w(n);
      mp_real total = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const auto at = static_cast<size_t>((h * n + i) * n + j);
        w[j] = exp((terms[0].data[at] + terms[1].data[at] + terms[2].data[at] + terms[3].data[at]) / sqrt(mp_real(d)));
        total += w[j];
      }
      for (std::int64_t c = 0; c < d; ++c) {
        mp_real acc = 0;
        for (std::int64_t j = 0; j < n; ++j) acc += w[j] * mp_real(in.v.data[(j * heads + h) * d + c]);
        EXPECT_LT(abs(out.data[(i * heads + h) * d + c] - acc / total), mp_real("1e-70"));
      }
    }
  in.qpos = {1005, 1006, 1009};
  in.kpos = {1005, 1006, 1009};
  const auto shifted = pe::attend<mp_real>(s, in);
  for (size_t e = 0; e < out.data.size(); ++e) EXPECT_LT(abs(out.data[e] - shifted.data[e]), mp_real("1e-60")) << e;
}

}  // namespace
