// Laws of xPos: scores see only m - n, centring the positions changes none, and the envelope of a score decays with distance.
#include <fmt/format.h>

#include "pe/scheme.hpp"
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// D even in 2..256, base 10^2..10^6, gamma 0.4 or a multiple of 2^-8 in [0.05, 2], scale_base
// 512 or an integer in 16..4096, either layout: every value exact in the spec text.
rc::Gen<std::string> gen_xpos_spec() {
  return rc::gen::exec([] {
    const auto dim = 2 * *rc::gen::inRange<std::int64_t>(1, 129);
    const auto base = *rc::gen::inRange<std::int64_t>(100, 1000001).as("base");
    const double gamma = *rc::gen::arbitrary<bool>() ? 0.4 : *rc::gen::inRange(13, 513) / 256.0;
    const auto scale_base = *rc::gen::arbitrary<bool>() ? 512 : *rc::gen::inRange<std::int64_t>(16, 4097);
    return fmt::format("xpos(dim={}, base={}, gamma={}, scale_base={}, layout={})", dim, base, gamma, scale_base,
                       *rc::gen::element<std::string>("gptj", "neox"));
  });
}

// The largest position a law draws: every scale within 2^(+-450), so that outputs, products and
// squared pair norms stay normal in binary64 (proofs/xpos.relative_inner_product.md, "Position bound").
template <class T>
std::int64_t position_top(const backend<T>& b, const spec& s) {
  const auto plan = rotation_plan_of(s, std::nullopt);
  return std::min({b.max_position(), plan.magnitude->positions_within(450), std::int64_t{1} << 40});
}

// [x; x] rotated as a query (role 0) or a key (role 1) at two positions, one head: token t is row t.
template <class T>
typename backend<T>::bounded scaled(const backend<T>& b, const spec& s, const std::vector<double>& x, std::int64_t p1, std::int64_t p2,
                                    int role) {
  std::vector<double> both = x;
  both.insert(both.end(), x.begin(), x.end());
  auto in = rotate_inputs(std::move(both), 2, 1, s.integer("dim"), {p1, p2}, 1);
  in.role = role;
  return b.output_with_error("rotate", s, in, "y");
}

// One pair's view of a query row and a key row: its share of the score and the sum of |products|,
// the squared pair norms, and how far the outputs' errors may move each.
template <class T>
struct pair_view {
  T share, norm_q, norm_k;
  double magnitude = 0, share_moved = 0, norm_q_moved = 0, norm_k_moved = 0;
};

template <class T>
pair_view<T> view_of(const typename backend<T>::bounded& yq, const typename backend<T>::bounded& yk, std::int64_t row, const rotation_pair& pr) {
  pair_view<T> v{T(0), T(0), T(0)};
  for (const auto d : {pr.a, pr.b}) {
    const auto e = static_cast<std::size_t>(row + d);
    const T& q = yq.value.data[e];
    const T& k = yk.value.data[e];
    const T prod = q * k;
    v.share += prod, v.norm_q += q * q, v.norm_k += k * k;
    v.magnitude += std::abs(as_double(prod));
    const double aq = std::abs(as_double(q)), ak = std::abs(as_double(k)), eq = yq.error[e], ek = yk.error[e];
    v.share_moved += aq * ek + ak * eq + eq * ek;
    v.norm_q_moved += 2 * aq * eq + eq * eq, v.norm_k_moved += 2 * ak * ek + ek * ek;
  }
  return v;
}

// Token 0 against token 1 of the query and key calls, pair by pair: each pair's share of the
// score is the same (within 1.01 (2u + gamma_2) of its |products|, plus the outputs' errors) and,
// with products = true, so is the product of its squared norms (within 1.01 * 2 gamma_9).
template <class T>
measure same_shares(const spec& s, const typename backend<T>::bounded& yq, const typename backend<T>::bounded& yk, bool products) {
  const double u = unit_roundoff<T>();
  const std::int64_t dim = s.integer("dim");
  std::vector<std::pair<double, double>> parts;  // residual, bound
  double all1 = 0, all2 = 0;
  for (const auto& pr : rotation_plan_of(s, std::nullopt).pairs) {
    const auto v1 = view_of<T>(yq, yk, 0, pr), v2 = view_of<T>(yq, yk, dim, pr);
    parts.push_back({abs_difference(v1.share, v2.share), 1.01 * (2 * u + gamma(2, u)) * (v1.magnitude + v2.magnitude) + v1.share_moved + v2.share_moved});
    all1 += v1.magnitude, all2 += v2.magnitude;
    if (!products) continue;
    const T p1 = v1.norm_q * v1.norm_k, p2 = v2.norm_q * v2.norm_k;
    const auto moved = [](const pair_view<T>& v) {
      const double nq = as_double(v.norm_q), nk = as_double(v.norm_k);
      return nq * v.norm_k_moved + nk * v.norm_q_moved + v.norm_q_moved * v.norm_k_moved;
    };
    const double larger = std::max(std::abs(as_double(p1)), std::abs(as_double(p2)));
    parts.push_back({abs_difference(p1, p2), 1.01 * 2 * gamma(9, u) * larger + moved(v1) + moved(v2)});
  }
  // The whole dot's bound: the exactness ladder reads residual / scale against it.
  worst_part worst(1.01 * (2 * u + gamma(static_cast<double>(dim), u)) * (all1 + all2));
  for (const auto& [residual, bound] : parts) worst.add(residual, bound);
  return worst.result(std::max({all1, all2, 1e-300}));
}

// <Q_m q, K_n k> = <Q_(m-c) q, K_(n-c) k>, c = min(m, n), pair by pair.
template <class T>
struct xpos_relative_inner_product {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t top = position_top(b, s), dim = s.integer("dim");
    const auto m = *gen_position(top).as("m"), n = *gen_position(top).as("n"), c = std::min(m, n);
    const auto q = b.stored(*gen_vector(dim).as("q")), k = b.stored(*gen_vector(dim).as("k"));
    return same_shares<T>(s, scaled(b, s, q, m, m - c, 0), scaled(b, s, k, n, n - c, 1), false);
  }
};

// torchscale's centring by c = ceil(N/2): scores and the pairs' scale products unchanged.
template <class T>
struct centring_invariance {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t top = position_top(b, s), dim = s.integer("dim");
    const auto length = std::max<std::int64_t>(1, *gen_position(top));
    const auto m = *rc::gen::inRange<std::int64_t>(0, length).as("m"), n = *rc::gen::inRange<std::int64_t>(0, length).as("n");
    const std::int64_t c = length / 2 + length % 2;
    const auto q = b.stored(*gen_vector(dim).as("q")), k = b.stored(*gen_vector(dim).as("k"));
    return same_shares<T>(s, scaled(b, s, q, m, m - c, 0), scaled(b, s, k, n, n - c, 1), true);
  }
};

// U(D) = sum_i rho(y_q, i) rho(y_k, i) bounds |score| and falls by at least kappa per token of
// distance (proofs/xpos.long_term_decay.md). Residual: the worst of the three inequalities'
// excess over its slack (bound 1).
template <class T>
struct xpos_long_term_decay {
  static measure run(const backend<T>& b, const spec& s) {
    using std::abs, std::sqrt;
    const std::int64_t top = position_top(b, s), dim = s.integer("dim");
    RC_PRE(top >= 1);
    const auto [d1, d2] = two_distinct_distances(top);
    const auto n1 = *gen_position(top - d1).as("n1"), n2 = *gen_position(top - d2).as("n2");
    const auto q = b.stored(*gen_vector(dim).as("q")), k = b.stored(*gen_vector(dim).as("k"));
    const auto yq = scaled(b, s, q, n1 + d1, n2 + d2, 0), yk = scaled(b, s, k, n1, n2, 1);
    const auto pairs = rotation_plan_of(s, std::nullopt).pairs;
    const double u = unit_roundoff<T>(), g_norms = gamma(static_cast<double>(pairs.size() + 6), u);
    const double kappa = 0.99 * 2 / (s.real("scale_base") * static_cast<double>(dim) * (1 + s.real("gamma")) + 2);
    T envelope[2] = {T(0), T(0)};
    double worst = 0;
    const auto excess = [&](double over, double slack) -> double {
      if (std::isnan(over)) return HUGE_VAL;
      if (over <= 0) return 0.0;
      return slack > 0 ? over / slack : HUGE_VAL;
    };
    for (int t = 0; t < 2; ++t) {
      T score(0);
      double magnitude = 0;
      const std::int64_t row = t * dim;
      for (const auto& pr : pairs) {
        const auto v = view_of<T>(yq, yk, row, pr);
        score += v.share, magnitude += v.magnitude;
        envelope[t] += sqrt(v.norm_q) * sqrt(v.norm_k);
      }
      const double slack = 1.01 * (g_norms * as_double(envelope[t]) + (2 * u + gamma(static_cast<double>(dim), u)) * magnitude);
      worst = std::max(worst, excess(as_double(T(abs(score) - envelope[t])), slack));  // (a), the difference in T
    }
    const T ceiling = T(1 - kappa) * envelope[0];
    worst = std::max(worst, excess(as_double(T(envelope[1] - ceiling)), 1.01 * (2 * g_norms + 2 * u) * as_double(envelope[0])));  // (b)
    return {worst, 1, 1};
  }
};

}  // namespace

void add_xpos_properties(std::vector<property>& out) {
  const std::vector<target> xpos = {random_specs("xpos", expectation::holds),
                                    fixed_spec("xpos(dim=128, base=10000, gamma=0.4, scale_base=512, layout=gptj)", expectation::holds)};
  out.push_back(on_implementations(make_property<xpos_relative_inner_product>(
      "xpos.relative_inner_product",
      "<Q_m q, K_n k> = <Q_(m-c) q, K_(n-c) k> with c = min(m, n): the query and key scales meet as zeta^((m-n)/scale_base), so scores see only m - n",
      law_kind::identity, xpos)));
  out.push_back(make_property<centring_invariance>(
      "xpos.centring_invariance",
      "centring every position by ceil(N/2), as torchscale does, changes no pair's share of a score nor the product of its query and key scales",
      law_kind::identity, xpos));
  out.push_back(make_property<xpos_long_term_decay>(
      "xpos.long_term_decay",
      "sum_i |pair_i(Q_m q)| |pair_i(K_n k)| bounds |score| and falls with m - n by at least 2/(scale_base D (1 + gamma) + 2) per token",
      law_kind::inequality, xpos));
}

namespace {

const family_registration xpos_registration{35, add_xpos_properties};
const spec_generator_registration xpos_generator{"xpos", [] { return gen_xpos_spec(); }};

}  // namespace

}  // namespace pe::props
