// Laws of the additive encodings: the four-term score expansion, and the flaws of counting, normalizing and binary codes.
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// attend for an absolute encoding equals softmax(z) V with z the sum of the seed's four terms
// x Wq.x Wk + x Wq.p Wk + p Wq.x Wk + p Wq.p Wk over sqrt(d), the terms computed here from
// encode's vectors. The bound is the first-order error of this computation (proof).
template <class T>
struct four_term_expansion {
  static measure run(const backend<T>& b, const spec& s) {
    using std::sqrt;
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 6).as("tokens");
    const auto in = draw_attend(s, tokens, false);
    std::vector<std::int64_t> pos(static_cast<size_t>(tokens));
    for (std::int64_t t = 0; t < tokens; ++t) pos[static_cast<size_t>(t)] = t;
    const tensor<T> pe = encoded(b, s, pos);
    const tensor<T> out = b.output("attend", s, attend_op_inputs(in), "out");
    const std::int64_t width = in.x.shape[1], heads = in.heads, d = in.wq.shape[1] / heads, dv = in.wv.shape[1] / heads;
    const double u = unit_roundoff<T>();
    // encode's entries are within 2 ulps (4u relative, sinusoidal's phase bound) of exact: that is
    // in eps_proj below. e_p adds an absolute floor for entries under 2^-70, where the phase
    // bound is absolute rather than relative (an O(u^2) term after eps_proj multiplies it).
    const double pmax = max_abs(pe);
    const double e_p = 2 * u * pmax;
    const auto X = [&](std::int64_t t, std::int64_t r) { return T(in.x.data[static_cast<size_t>(t * width + r)]); };
    const auto W = [&](const tensor<double>& w, std::int64_t r, std::int64_t c) { return T(w.data[static_cast<size_t>(r * w.shape[1] + c)]); };
    // Projections of x and of p separately (the four terms keep them apart), and |x|+|p| through |W| for the bound.
    const auto project = [&](const tensor<double>& w, std::int64_t cols, std::vector<T>& xw, std::vector<T>& pw, std::vector<double>& mag) {
      xw.assign(static_cast<size_t>(tokens * cols), T(0));
      pw = xw;
      mag.assign(xw.size(), 0.0);
      for (std::int64_t t = 0; t < tokens; ++t)
        for (std::int64_t c = 0; c < cols; ++c)
          for (std::int64_t r = 0; r < width; ++r) {
            const T w_rc = W(w, r, c);
            xw[t * cols + c] += X(t, r) * w_rc;
            pw[t * cols + c] += pe(t, r) * w_rc;
            mag[t * cols + c] += std::abs(as_double(w_rc)) * (std::abs(as_double(X(t, r))) + std::abs(as_double(pe(t, r))) + e_p);
          }
    };
    std::vector<T> xq, pq, xk, pk, xv, pv;
    std::vector<double> mq, mk, mv;
    project(in.wq, heads * d, xq, pq, mq);
    project(in.wk, heads * d, xk, pk, mk);
    project(in.wv, heads * dv, xv, pv, mv);
    // Per projected entry, relative to mag: encode's 2 ulps (4u) and the width + 1 term sum.
    const double eps_proj = 4 * u + gamma(static_cast<double>(width) + 1, u);
    const T root_d = sqrt(T(d));
    double residual = 0, bound = 0;
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t i = 0; i < tokens; ++i) {
        std::vector<T> z(static_cast<size_t>(tokens));
        double eps_z = 0;
        for (std::int64_t j = 0; j < tokens; ++j) {
          T ww(0), wp(0), pw(0), pp(0);
          double mag = 0;
          for (std::int64_t c = h * d; c < (h + 1) * d; ++c) {
            const auto qi = static_cast<size_t>(i * heads * d + c), kj = static_cast<size_t>(j * heads * d + c);
            ww += xq[qi] * xk[kj];
            wp += xq[qi] * pk[kj];
            pw += pq[qi] * xk[kj];
            pp += pq[qi] * pk[kj];
            mag += mq[qi] * mk[kj];
          }
          z[j] = (ww + wp + pw + pp) / root_d;
          eps_z = std::max(eps_z, (2 * eps_proj + gamma(static_cast<double>(d) + 3, u) + 3 * u) * mag / std::sqrt(double(d)));
        }
        const auto [w, total] = softmax_weights(z);
        for (std::int64_t c = 0; c < dv; ++c) {
          T acc(0);
          double vmax = 0;
          for (std::int64_t j = 0; j < tokens; ++j) {
            const auto vj = static_cast<size_t>(j * heads * dv + h * dv + c);
            acc += w[j] * (xv[vj] + pv[vj]);
            vmax = std::max(vmax, mv[vj]);
          }
          const T mine = acc / total;
          const T theirs = out.data[static_cast<size_t>((i * heads + h) * dv + c)];
          residual = std::max(residual, std::abs(as_double(T(mine - theirs))));
          // Softmax: exp's ulp, z - top, numerator and denominator sums and the division (3T + 5 roundings).
          const double here = (2 * eps_z + gamma(3.0 * static_cast<double>(tokens) + 5, u) + eps_proj) * vmax + u * std::abs(as_double(theirs));
          bound = std::max(bound, 1.01 * here);
        }
      }
    return {residual, bound, std::max(max_abs(out), 1e-300)};
  }
};

// ||PE(p)||^2 = dim p^2: the counting code grows without bound (seed 000 option 1).
template <class T>
struct integer_unbounded_norm {
  static measure run(const backend<T>& b, const spec& s) {
    const auto p = *gen_position().as("p");
    RC_CLASSIFY(p >= (std::int64_t{1} << 24), "p>=2^24");
    const auto pe = encoded(b, s, {p});
    const std::int64_t dim = s.integer("dim");
    T norm2(0);
    for (const auto& v : pe.data) norm2 += v * v;
    const T expected = T(dim) * T(p) * T(p);
    const double u = unit_roundoff<T>();
    const double scale = std::max(as_double(expected), 1e-300);
    // Relative: the dim squares and their sum (gamma_{dim+1}) against dim p^2, rounded once as
    // dim p is exact (u; 3u leaves room).
    return {std::abs(as_double(T(norm2 - expected))) / scale, 1.01 * (gamma(static_cast<double>(dim) + 1, u) + 3 * u), 1};
  }
};

// The normalized code p/N of one position differs between lengths N and M, and the last
// position's code (N-1)/N is never 1 (seed 000 says it always is). Separation law: residual
// is the rounding floor, bound the smaller of the two separations.
template <class T>
struct normalized_length_dependence {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t n = s.integer("length");
    const auto m = *rc::gen::inRange<std::int64_t>(2, std::int64_t{1} << 40).as("m");
    RC_PRE(m != n);
    const auto p = *rc::gen::inRange<std::int64_t>(1, std::min(n, m)).as("p");
    const spec other = parse_spec(fmt::format("normalized(dim={}, length={})", s.integer("dim"), m));
    const auto here = encoded(b, s, {p, n - 1}), there = encoded(b, other, {p});
    const double u = unit_roundoff<T>();
    const double mine = as_double(here.data[0]), theirs = as_double(there.data[0]), last = as_double(here(1, 0));
    // Each separation against its own floor, relative to the values it separates (u each, as
    // every code is one rounding of p/N): an absolute floor would be too coarse in binary32,
    // where p/N can be near 2^-40. Reported as the larger floor / separation ratio, in units of u.
    const double differ = std::abs(as_double(T(here.data[0] - there.data[0]))), below_one = 1 - last;
    const double ratio = std::max(u * (std::abs(mine) + std::abs(theirs)) * (1 + u) / differ, u * (1 + std::abs(last)) * (1 + u) / below_one);
    return {ratio * u, u, 1};
  }
};

// Binary codes jump: from p to p+1 exactly 1 + (trailing ones of p) bits flip, up to dim at once.
template <class T>
struct binary_jumpiness {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t dim = s.integer("dim");
    // p + 1 < 2^dim (past it the codes alias, which binary's own doc says); positions to 2^40.
    const std::int64_t top = (std::int64_t{1} << std::min<std::int64_t>(dim, 40)) - 2;
    // Weighted to the largest jump: p = 2^(dim-1) - 1 flips all dim bits (for dim <= 40).
    const std::int64_t all_flip = (std::int64_t{1} << (std::min<std::int64_t>(dim, 40) - 1)) - 1;
    const auto p = *rc::gen::weightedOneOf<std::int64_t>(
        {{3, rc::gen::inRange<std::int64_t>(0, top + 1)}, {1, rc::gen::just(top)}, {1, rc::gen::just(all_flip)}}).as("p");
    RC_CLASSIFY(__builtin_ctzll(~static_cast<unsigned long long>(p)) + 1 == dim, "all bits flip");
    const auto pe = encoded(b, s, {p, p + 1});
    std::int64_t flips = 0;
    for (std::int64_t c = 0; c < dim; ++c) flips += pe(0, c) != pe(1, c);
    const std::int64_t expected = 1 + __builtin_ctzll(~static_cast<unsigned long long>(p));
    return {static_cast<double>(std::abs(flips - expected)), 0, 1};
  }
};

}  // namespace

void add_absolute_properties(std::vector<property>& out) {
  std::vector<target> absolute;
  for (const auto& name : absolute_schemes()) absolute.push_back(random_specs(name, expectation::holds));
  out.push_back(make_property<four_term_expansion>(
      "absolute.four_term_expansion",
      "with q = (x + p) Wq and k = (x + p) Wk, attend's score is word.word + word.position + position.word + position.position",
      law_kind::identity, absolute));
  out.push_back(make_property<integer_unbounded_norm>(
      "integer.unbounded_norm", "the counting code has ||PE(p)||^2 = dim p^2: its norm grows without bound", law_kind::identity,
      {random_specs("integer", expectation::holds)}));
  out.push_back(make_property<normalized_length_dependence>(
      "normalized.length_dependence",
      "p/N depends on the length: one position gets different codes under lengths N and M, and the last code (N-1)/N is never 1",
      law_kind::inequality, {random_specs("normalized", expectation::holds)}));
  out.push_back(make_property<binary_jumpiness>(
      "binary.jumpiness", "from p to p+1 exactly 1 + (trailing ones of p) bits flip: one step can change every component",
      law_kind::identity, {random_specs("binary", expectation::holds)}));
}


namespace {

const family_registration absolute_registration{10, add_absolute_properties};
const spec_generator_registration integer_generator{"integer", [] { return gen_dim_spec("integer"); }};
const spec_generator_registration normalized_generator{"normalized", [] { return gen_normalized_spec(); }};
const spec_generator_registration binary_generator{"binary", [] { return gen_binary_spec(); }};
const spec_generator_registration learned_generator{"learned", [] { return gen_learned_spec(); }};

}  // namespace

}  // namespace pe::props
