// The rotation engine shared by the RoPE family: rotate pairs of dims by p * omega, exactly, for any plan.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "pe/decided_rounding.hpp"
#include "pe/error.hpp"
#include "pe/exact_number.hpp"
#include "pe/fast_kernels.hpp"
#include "pe/parallel.hpp"
#include "pe/phase.hpp"
#include "pe/scalar.hpp"
#include "pe/sin_cos_dd.hpp"
#include "pe/tensor.hpp"

namespace pe {

// One rotated pair: dims a and b turn together by pos[axis] * omega(k), k its index in the plan.
struct rotation_pair {
  std::int64_t a, b;
  int axis;
};

// A RoPE-family layout: which dims pair up, which position column each pair reads, and the
// frequency source (an object with `template <class U> U omega(int k) const` and
// `template <class U> U attention_factor() const`).
// A run of dims [offset, offset + width) paired by one layout: neox (o + i, o + i + width/2),
// or gptj (o + 2i, o + 2i + 1).
struct rotated_block {
  std::int64_t offset, width;
  bool neox;
};

// Which side of a score a rotation serves: xPos scales queries and keys oppositely.
enum class rotation_role { query, key };

// xPos's magnitude (Sun et al. 2022; torchscale's XPOS): pair k is also scaled by
// zeta_k^(s p / scale_base), zeta_k = (2k/D + gamma)/(1 + gamma), s = +1 for queries and -1 for
// keys, so that a query's and a key's scales multiply to zeta_k^((m - n)/scale_base): a decay
// in the distance m - n alone (proofs/xpos.relative_inner_product.md).
struct pair_magnitude {
  std::int64_t dim;  // D of the zeta law
  double gamma, scale_base;
  // gamma and scale_base as written where they are expressions (gamma=2/5), else null: the MPFR
  // path reads them exactly (pe/exact_number.hpp), binary formats their rounded doubles.
  std::shared_ptr<const exact_number> exact_gamma = nullptr, exact_scale_base = nullptr;
  template <class U>
  U log_zeta(int k) const {
    using std::log;
    const U g = exact_or<U>(exact_gamma, gamma);
    return log((U(2 * k) / U(dim) + g) / (U(1) + g));
  }
  template <class U>
  U at(int k, std::int64_t p, rotation_role role) const {
    return at_log(log_zeta<U>(k), p, role);
  }
  // at() from pair k's log_zeta<U>(k), computed once by the caller.
  template <class U>
  U at_log(const U& log_zeta_k, std::int64_t p, rotation_role role) const {
    using std::exp;
    const U exponent = U(p) / exact_or<U>(exact_scale_base, scale_base) * log_zeta_k;
    return exp(role == rotation_role::query ? exponent : U(0) - exponent);
  }
  // log_zeta<U>(k) for every k < pairs, at the working precision `bits` now in force: computed
  // once per process for MPFR (a log per pair and call had been a fifteenth of check --ladder).
  template <class U>
  std::vector<U> log_zetas(int pairs, unsigned bits) const {
    const auto compute = [&] {
      std::vector<U> out;
      for (int k = 0; k < pairs; ++k) out.push_back(log_zeta<U>(k));
      return out;
    };
    if constexpr (!std::is_same_v<U, mp_real>) return compute();
    else return *cached<std::vector<U>>(fmt::format("xpos_log_zeta|{}|{:a}|{}|{}|{}", dim, gamma, exact_gamma ? exact_gamma->text() : "-", pairs, bits), compute);
  }
  // The largest |position| whose scales all stay within 2^(+-binades): zeta_0 is the smallest.
  std::int64_t positions_within(double binades) const {
    const double limit = std::floor(binades * std::log(2.0) * scale_base / std::abs(log_zeta<double>(0)));
    return limit >= 0x1p62 ? std::int64_t{1} << 62 : static_cast<std::int64_t>(limit);
  }
};

// A plan with a magnitude rotates queries and keys differently: it needs the role (input_error without).
inline void require_role(const std::optional<pair_magnitude>& magnitude, std::optional<rotation_role> role) {
  if (magnitude && !role) throw input_error("rotate: this scheme scales queries and keys apart; give role 0 (query) or 1 (key)");
}

template <class Freq>
struct rotation_plan {
  std::int64_t dim;                    // D; dims in no pair pass through unchanged
  int axes;                            // A: positions are [T, A]
  std::vector<rotation_pair> pairs;    // k-th pair uses freq.omega(k)
  Freq freq;
  std::vector<rotated_block> blocks;   // the pairs' blocks, in order (laws read the layout here)
  std::optional<pair_magnitude> magnitude = std::nullopt;  // xPos: rotate then needs a role
};

// Appends a block of `width` dims at `offset`, its pairs reading position column `axis`.
template <class Freq>
void add_block(rotation_plan<Freq>& plan, bool neox, std::int64_t offset, std::int64_t width, int axis = 0) {
  const std::int64_t half = width / 2;
  for (std::int64_t i = 0; i < half; ++i) {
    plan.pairs.push_back(neox ? rotation_pair{offset + i, offset + i + half, axis} : rotation_pair{offset + 2 * i, offset + 2 * i + 1, axis});
  }
  plan.blocks.push_back({offset, width, neox});
}

// A pair the fast kernels declined: token `token`, index h * pairs + k.
struct declined_rotation {
  std::int64_t token, index;
};

// The fast kernels over tokens [0, tokens), split across worker threads (parallel_lists): token
// t's pair k (dims dims_a[k], dims_b[k]) turns by position_of(t, k), rotating the [heads, dim] row
// x_of(t) into y_of(t); after_token(t) runs on the same thread. Returns the pairs the kernels
// declined, in token order, for the caller to compute with MPFR on its own thread (its precision
// is process-wide).
template <class Position, class Input, class Output, class After>
std::vector<declined_rotation> rotate_tokens_fast(std::int64_t tokens, const std::vector<turn_fraction>& turns, const std::vector<std::int64_t>& dims_a,
                                                  const std::vector<std::int64_t>& dims_b, std::int64_t heads, std::int64_t dim,
                                                  const rotation_factor& factor, const Position& position_of, const Input& x_of,
                                                  const Output& y_of, const After& after_token) {
  const fast_kernels& kernels = default_fast_kernels();
  const auto n = static_cast<std::int64_t>(dims_a.size());
  return parallel_lists<declined_rotation>(tokens, n * heads, [&](std::int64_t begin, std::int64_t end, std::vector<declined_rotation>& list) {
    sin_cos_rows rows;
    std::vector<std::int64_t> positions(static_cast<size_t>(n)), declined(static_cast<size_t>(heads * n));
    std::vector<double> scratch(static_cast<size_t>(5 * n));
    for (std::int64_t t = begin; t < end; ++t) {
      for (std::size_t k = 0; k < positions.size(); ++k) positions[k] = position_of(t, k);
      rows.compute(positions, turns, kernels);
      const std::int64_t count = kernels.rotate_token({rows.c_hi.data(), rows.c_lo.data(), rows.s_hi.data(), rows.s_lo.data(), dims_a.data(), dims_b.data(), n,
                                                       heads, dim, factor, x_of(t), y_of(t), declined.data(), scratch.data()});
      for (std::int64_t i = 0; i < count; ++i) list.push_back({t, declined[static_cast<size_t>(i)]});
      after_token(t);
    }
  });
}

// Working bits of the rotation arithmetic: 256 for stored binary formats, output + 192 for
// MPFR, so outputs survive cancellation down to 2^-190 (binary) or 2^-128 (MPFR) of the inputs.
template <class T>
unsigned rotation_wide_bits() {
  return std::is_same_v<T, mp_real> ? mp_output_bits() + mp_phase_guard_bits : wide_result_bits;
}

// The attention factor as the fast path takes it: exactly 1, or a double-double with |A| in
// [2^-100, 2^100]; nullopt otherwise (the MPFR path then serves every pair).
inline std::optional<rotation_factor> rotation_factor_of(const mp_real& factor) {
  if (factor == 1) return rotation_factor{{1.0, 0.0}, true};
  const dd a = to_dd(factor);
  const double m = std::fabs(a.hi);
  if (!(m >= 0x1p-100 && m <= 0x1p100)) return std::nullopt;
  return rotation_factor{a, false};
}

// y = factor * R_pos x on the paired dims, x unchanged elsewhere (HF concatenates the
// pass-through part back unscaled), factor the plan's attention factor, times pair k's
// magnitude for the role where the plan has one (xPos). x is [T, H, D], pos is [T, A]
// row-major. Each output is computed in wide precision from exactly reduced phases and
// rounded once to T.
template <class T, class Freq>
tensor<T> rotate_pairs(const rotation_plan<Freq>& plan, const tensor<double>& x, std::span<const std::int64_t> pos,
                       std::optional<rotation_role> role = std::nullopt) {
  using W = wide_t<T>;
  const std::int64_t tokens = x.shape.at(0), heads = x.shape.at(1), dim = x.shape.at(2);
  if (dim != plan.dim || static_cast<std::int64_t>(pos.size()) != tokens * plan.axes) {
    throw input_error(fmt::format("x has shape [{}] and {} positions, but the spec wants x [T, H, {}] with T*{} positions",
                                  fmt::join(x.shape, ", "), pos.size(), plan.dim, plan.axes));
  }
  require_role(plan.magnitude, role);
  if (plan.magnitude) {
    // Scales within 2^(+-2^29) stay inside MPFR's exponent range (2^30), where 0 times a scale is
    // still 0; beyond it the scale itself would be infinite.
    const std::int64_t reach = plan.magnitude->positions_within(0x1p29);
    for (const auto p : pos)
      if (p > reach || p < -reach) throw input_error(fmt::format("rotate: position {} is beyond this scale's range: |p| <= {}", p, reach));
  }
  const phase_table<compute_t<T>> phases(plan.freq, static_cast<int>(plan.pairs.size()));
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(rotation_wide_bits<T>());
  const W factor = plan.freq.template attention_factor<W>();
  tensor<T> y(x.shape);
  std::vector<bool> paired(static_cast<size_t>(dim), false);
  for (const auto& pr : plan.pairs) paired[pr.a] = paired[pr.b] = true;
  const auto at = [&](std::int64_t t, std::int64_t h, std::int64_t d) { return static_cast<size_t>((t * heads + h) * dim + d); };
  // The pass-through dims of token t: copied (exact) for binary64, rounded once otherwise.
  const auto pass_through = [&](std::int64_t t) {
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t d = 0; d < dim; ++d)
        if (!paired[d]) {
          if constexpr (std::is_same_v<T, double>) y.data[at(t, h, d)] = x.data[at(t, h, d)];
          else y.data[at(t, h, d)] = store_as<T>(W(x.data[at(t, h, d)]));
        }
  };
  // Pair k of token t and head h in wide precision, rounded once: sin and cos (and xPos's scale)
  // are computed once per (token, pair) and reused across heads.
  std::optional<std::pair<W, W>> wide;
  std::optional<W> scaled;  // the factor times xPos's magnitude
  const std::vector<W> log_zetas = plan.magnitude ? plan.magnitude->template log_zetas<W>(static_cast<int>(plan.pairs.size()), rotation_wide_bits<T>())
                                                  : std::vector<W>{};
  std::int64_t wide_token = -1;
  size_t wide_pair = 0;
  const auto rotate_wide = [&](std::int64_t t, std::int64_t h, size_t k) {
    const auto& pr = plan.pairs[k];
    if (wide_token != t || wide_pair != k) {
      const std::int64_t p = pos[t * plan.axes + pr.axis];
      wide = phases.sin_cos_wide(p, static_cast<int>(k));
      if (plan.magnitude) scaled = factor * plan.magnitude->at_log(log_zetas[k], p, *role);
      wide_token = t, wide_pair = k;
    }
    const auto& [sn, cs] = *wide;
    const W& scale = scaled ? *scaled : factor;
    const W wa(x.data[at(t, h, pr.a)]), wb(x.data[at(t, h, pr.b)]);
    y.data[at(t, h, pr.a)] = store_as<T>(scale * (cs * wa - sn * wb));
    y.data[at(t, h, pr.b)] = store_as<T>(scale * (sn * wa + cs * wb));
  };
  // binary64 outputs take the fast double-double kernels (fast_kernels.hpp) wherever they prove
  // their rounding, and the wide path for the pairs they decline: the same correctly rounded
  // values either way.
  // Tokens are split across worker threads (parallel.hpp); the declined pairs are collected and
  // computed afterwards on this thread, since the wide path uses MPFR's process-wide precision.
  if constexpr (std::is_same_v<T, double>) {
    if (!plan.magnitude)
      if (const auto fast_factor = rotation_factor_of(factor)) {
        const auto n = static_cast<std::int64_t>(plan.pairs.size());
        std::vector<std::int64_t> dims_a, dims_b;
        for (const auto& pr : plan.pairs) dims_a.push_back(pr.a), dims_b.push_back(pr.b);
        const auto declined = rotate_tokens_fast(
            tokens, phases.all_turns(), dims_a, dims_b, heads, dim, *fast_factor,
            [&](std::int64_t t, std::size_t k) { return pos[t * plan.axes + plan.pairs[k].axis]; },
            [&](std::int64_t t) { return x.data.data() + at(t, 0, 0); }, [&](std::int64_t t) { return y.data.data() + at(t, 0, 0); }, pass_through);
        for (const auto& d : declined) rotate_wide(d.token, d.index / n, static_cast<size_t>(d.index % n));
        return y;
      }
  }
  // Narrower outputs (binary32, bf16, fp16) round the correctly rounded binary64 result once
  // more. That is the correct rounding of the exact value unless the binary64 value is a
  // midpoint of T's format (proofs/precision.fast_rotate.md, "narrower outputs"): those pairs
  // take the wide path.
  if constexpr (!std::is_same_v<T, double> && std::is_same_v<compute_t<T>, double>) {
    if (!plan.magnitude && rotation_factor_of(factor)) {
      const tensor<double> y64 = rotate_pairs<double>(plan, x, pos, role);
      for (size_t i = 0; i < y64.data.size(); ++i) y.data[i] = store_as<T>(y64.data[i]);
      for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t h = 0; h < heads; ++h)
          for (size_t k = 0; k < plan.pairs.size(); ++k)
            if (is_midpoint_in_format(y64.data[at(t, h, plan.pairs[k].a)], format_of<T>()) ||
                is_midpoint_in_format(y64.data[at(t, h, plan.pairs[k].b)], format_of<T>()))
              rotate_wide(t, h, k);
      return y;
    }
  }
  for (std::int64_t t = 0; t < tokens; ++t) {
    for (size_t k = 0; k < plan.pairs.size(); ++k)
      for (std::int64_t h = 0; h < heads; ++h) rotate_wide(t, h, k);
    pass_through(t);
  }
  return y;
}

// apply_tables: pair k of token t turned by the given cos[t][k] and sin[t][k] (tables [T, pairs],
// rows already gathered per token, no attention factor of their own): y_a = c x_a - s x_b,
// y_b = s x_a + c x_b, dims in no pair copied. Each output is computed in wide precision from the
// stored inputs (exact products) and rounded once to T, as rotate_pairs does.
template <class T, class Freq>
tensor<T> apply_rotation_tables(const rotation_plan<Freq>& plan, const tensor<double>& x, const tensor<double>& cos, const tensor<double>& sin) {
  using W = wide_t<T>;
  const std::int64_t tokens = x.shape.at(0), heads = x.shape.at(1), dim = x.shape.at(2);
  const auto pairs = static_cast<std::int64_t>(plan.pairs.size());
  if (dim != plan.dim) throw input_error(fmt::format("apply_tables: x has shape [{}]; the spec wants x [T, H, {}]", fmt::join(x.shape, ", "), plan.dim));
  for (const auto& [name, table] : {std::pair<const char*, const tensor<double>*>{"cos", &cos}, {"sin", &sin}}) {
    if (table->shape != std::vector<std::int64_t>{tokens, pairs}) {
      throw input_error(fmt::format("apply_tables: {} has shape [{}]; the spec wants [T, {}] with T = {}, x's tokens (a row per token, a column per rotated pair)",
                                    name, fmt::join(table->shape, ", "), pairs, tokens));
    }
  }
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(rotation_wide_bits<T>());
  tensor<T> y(x.shape);
  std::vector<bool> paired(static_cast<size_t>(dim), false);
  for (const auto& pr : plan.pairs) paired[pr.a] = paired[pr.b] = true;
  const auto at = [&](std::int64_t t, std::int64_t h, std::int64_t d) { return static_cast<size_t>((t * heads + h) * dim + d); };
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t h = 0; h < heads; ++h) {
      for (std::int64_t k = 0; k < pairs; ++k) {
        const auto& pr = plan.pairs[static_cast<size_t>(k)];
        const W c(cos.data[static_cast<size_t>(t * pairs + k)]), sn(sin.data[static_cast<size_t>(t * pairs + k)]);
        const W wa(x.data[at(t, h, pr.a)]), wb(x.data[at(t, h, pr.b)]);
        y.data[at(t, h, pr.a)] = store_as<T>(W(c * wa - sn * wb));
        y.data[at(t, h, pr.b)] = store_as<T>(W(sn * wa + c * wb));
      }
      for (std::int64_t d = 0; d < dim; ++d)
        if (!paired[static_cast<size_t>(d)]) {
          if constexpr (std::is_same_v<T, double>) y.data[at(t, h, d)] = x.data[at(t, h, d)];
          else y.data[at(t, h, d)] = store_as<T>(W(x.data[at(t, h, d)]));
        }
    }
  return y;
}

// The D x D rotation R_pos for one position row pos [A]: no attention factor, identity on the
// pass-through dims.
template <class T, class Freq>
tensor<T> rotation_matrix(const rotation_plan<Freq>& plan, std::span<const std::int64_t> pos) {
  using W = wide_t<T>;
  if (static_cast<int>(pos.size()) != plan.axes) {
    throw input_error(fmt::format("op 'matrix' takes one position row of {} values, not {}", plan.axes, pos.size()));
  }
  if (plan.magnitude) throw input_error("op 'matrix': a rotation scaled by role (xPos) has no single matrix");
  const phase_table<compute_t<T>> phases(plan.freq, static_cast<int>(plan.pairs.size()));
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(rotation_wide_bits<T>());
  tensor<T> r({plan.dim, plan.dim});
  for (auto& v : r.data) v = store_as<T>(W(0));
  for (std::int64_t d = 0; d < plan.dim; ++d) r(d, d) = store_as<T>(W(1));
  for (size_t k = 0; k < plan.pairs.size(); ++k) {
    const auto& pr = plan.pairs[k];
    if constexpr (std::is_same_v<T, double>) {
      // RN(cos) and RN(sin) (phase_table<double>::sin_cos); 0 - RN(s) = RN(0 - s), +0 at position 0.
      const auto [sn, cs] = phases.sin_cos(pos[pr.axis], static_cast<int>(k));
      r(pr.a, pr.a) = r(pr.b, pr.b) = cs;
      r(pr.a, pr.b) = 0.0 - sn;
      r(pr.b, pr.a) = sn;
      continue;
    }
    const auto [sn, cs] = phases.sin_cos_wide(pos[pr.axis], static_cast<int>(k));
    r(pr.a, pr.a) = store_as<T>(cs);
    r(pr.a, pr.b) = store_as<T>(W(0) - sn);  // 0 - s, not -s: +0 at position 0
    r(pr.b, pr.a) = store_as<T>(sn);
    r(pr.b, pr.b) = store_as<T>(cs);
  }
  return r;
}

// The plan's frequencies [pairs] and its attention factor [], as op inv_freq returns them.
template <class T, class Freq>
std::vector<named_tensor<T>> plan_inv_freq(const rotation_plan<Freq>& plan) {
  using W = wide_t<T>;
  std::optional<mp_working_bits> scope;
  if constexpr (std::is_same_v<W, mp_real>) scope.emplace(rotation_wide_bits<T>());
  const W factor = plan.freq.template attention_factor<W>();
  tensor<T> inv({static_cast<std::int64_t>(plan.pairs.size())});
  const int n = static_cast<int>(plan.pairs.size());
  // The frequencies in W, once per law and precision (the same values the loop would give).
  const std::vector<W> omegas = cached_for_law<std::vector<W>>("inv_freq", plan.freq, n, std::is_same_v<W, mp_real> ? rotation_wide_bits<T>() : 0, [&] {
    std::vector<W> out;
    for (int k = 0; k < n; ++k) out.push_back(plan.freq.template omega<W>(k));
    return out;
  });
  tensor<T> att(std::vector<std::int64_t>{});
  // Each one correctly rounded: a rational frequency or factor can lie next to a rounding boundary
  // of T, where the wide value alone would round it the wrong way (decided_rounding.hpp).
  for (int k = 0; k < n; ++k)
    inv.data[static_cast<size_t>(k)] = decided_store<T>(omegas[static_cast<size_t>(k)], [&] { return plan.freq.template omega<mp_real>(k); });
  att.data[0] = decided_store<T>(factor, [&] { return plan.freq.template attention_factor<mp_real>(); });
  return {{"inv_freq", std::move(inv)}, {"attention_factor", std::move(att)}};
}

}  // namespace pe
