// Laws of the relative schemes: ALiBi, T5, Transformer-XL, DeBERTa and Shaw see only distances, and their own structure.
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// ALiBi's slopes, read off the bias at distance 1: for n = 2^a heads a geometric sequence that
// starts at its own ratio 2^(-8/n); otherwise the first 2^floor(log2 n) are that sequence and
// the rest are the odd terms 2^(-4(2k+1)/n') of the sequence for 2 n' heads (the paper's interleaving).
template <class T>
struct slopes_geometric {
  static measure run(const backend<T>& b, const spec& s) {
    using std::pow;
    const std::int64_t heads = s.integer("heads");
    const auto bias = bias_of(b, s, {1}, {0});  // [H, 1, 1]: -slope (causal: -slope (1 - 0); else -slope |1 - 0|)
    std::vector<T> slope;
    for (std::int64_t h = 0; h < heads; ++h) slope.push_back(T(0) - bias.data[h]);
    std::int64_t n = 1;
    while (2 * n <= heads) n *= 2;
    const double u = unit_roundoff<T>();
    double residual = 0;
    // slope_0^n = 2^-8: n multiplications of a value within u (n + 1) u relative.
    residual = std::max(residual, relative_difference(T(pow(slope[0], T(n))), T(1.0 / 256)) / (static_cast<double>(n) + 2));
    for (std::int64_t h = 1; h < n; ++h) residual = std::max(residual, relative_difference(T(slope[h] / slope[h - 1]), slope[0]) / 4);
    if (heads > n) {
      const T half = pow(T(2), T(-4) / T(n));  // the ratio of the 2n sequence
      for (std::int64_t k = 0; k < heads - n; ++k)
        residual = std::max(residual, relative_difference(slope[n + k], T(pow(half, T(2 * k + 1)))) / (2 * static_cast<double>(k) + 5));
    }
    return {residual, 1.01 * u, 1};
  }
};

// T5 buckets: in [0, buckets), never smaller for a larger distance of the same sign, and
// (bidirectional) keys ahead in the upper half.
template <class T>
struct bucket_monotonic {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t buckets = s.integer("buckets");
    const bool bidirectional = s.boolean("bidirectional");
    const auto a = *gen_position(std::int64_t{1} << 40).as("a"), extra = *gen_position(std::int64_t{1} << 40).as("extra");
    const std::int64_t sign = *rc::gen::element<std::int64_t>(1, -1).as("sign");
    op_inputs in;
    in.rel = {sign * a, sign * (a + extra)};
    const auto got = b.output("bucket", s, in, "bucket");
    const double near = as_double(got.data[0]), far = as_double(got.data[1]);
    double residual = 0;
    for (const double v : {near, far}) residual += (v < 0 || v >= static_cast<double>(buckets) || v != std::floor(v));
    residual += far < near;
    if (bidirectional && sign > 0 && a > 0) residual += near < static_cast<double>(buckets / 2);
    if (bidirectional && sign < 0) residual += far >= static_cast<double>(buckets / 2);
    return {residual, 0, 1};
  }
};

// Attention with every query and key position shifted by t gives the same output (TXL, Shaw,
// DeBERTa see only i - j): both outputs round the same exact value.
template <class T>
struct attend_translation_invariance {
  static measure run(const backend<T>& b, const spec& s) {
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 6).as("tokens");
    auto in = draw_attend(s, tokens, *rc::gen::arbitrary<bool>().as("causal"));
    in.qpos = draw_positions(tokens, std::int64_t{1} << 20);
    in.kpos = draw_positions(tokens, std::int64_t{1} << 20);
    if (in.causal) in.kpos = in.qpos;  // every query keeps itself as a key
    const auto t = *gen_position(std::int64_t{1} << 40).as("t");
    auto moved = in;
    moved.qpos = shifted(in.qpos, t);
    moved.kpos = shifted(in.kpos, t);
    const auto o1 = b.output("attend", s, attend_op_inputs(in), "out"), o2 = b.output("attend", s, attend_op_inputs(moved), "out");
    return in_units_of_two_roundings<T>(excess_over_two_roundings<T>(o1, o2));
  }
};

// DeBERTa: attend = softmax((c2c + c2p + p2c) / sqrt(3 d)) v with the reference's three score
// terms (backend::score_terms), and the position terms c2p, p2c unchanged when every position shifts.
template <class T>
struct score_decomposition {
  static measure run(const backend<T>& b, const spec& s) {
    using std::sqrt;
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 6).as("tokens");
    auto in = draw_attend(s, tokens, false);
    in.qpos = draw_positions(tokens, 1 << 12);
    in.kpos = draw_positions(tokens, 1 << 12);
    const auto terms = b.score_terms(s, attend_op_inputs(in));
    const auto out = b.output("attend", s, attend_op_inputs(in), "out");
    auto moved = in;
    const auto t = *gen_position(std::int64_t{1} << 30).as("t");
    moved.qpos = shifted(in.qpos, t);
    moved.kpos = shifted(in.kpos, t);
    const auto terms_moved = b.score_terms(s, attend_op_inputs(moved));
    // Each check against its own allowance: the shifted position terms entry by entry (two
    // roundings of one exact value), and each output against its own first-order bound.
    double excess = std::max(excess_over_two_roundings<T>(terms[1].value, terms_moved[1].value),
                             excess_over_two_roundings<T>(terms[2].value, terms_moved[2].value));
    const std::int64_t heads = s.integer("heads"), d = s.integer("dim"), dv = in.v.shape[2];
    const double u = unit_roundoff<T>();
    const T scale = T(1) / sqrt(T(3 * d));
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::int64_t i = 0; i < tokens; ++i) {
        std::vector<T> z(static_cast<size_t>(tokens));
        double eps_z = 0;
        for (std::int64_t j = 0; j < tokens; ++j) {
          const auto at = static_cast<size_t>((h * tokens + i) * tokens + j);
          const T sum = terms[0].value.data[at] + terms[1].value.data[at] + terms[2].value.data[at];
          z[j] = sum * scale;
          double mag = 0;
          for (int k = 0; k < 3; ++k) mag += std::abs(as_double(terms[k].value.data[at]));
          // Terms rounded once (u each), summed (gamma_2), scaled by a rounded 1/sqrt(3d) (3u), the product (u).
          eps_z = std::max(eps_z, (u + gamma(2, u) + 4 * u) * mag * as_double(scale));
        }
        const auto [w, total] = softmax_weights(z);
        for (std::int64_t c = 0; c < dv; ++c) {
          T acc(0);
          double vmax = 0;
          for (std::int64_t j = 0; j < tokens; ++j) {
            const double vj = in.v.data[static_cast<size_t>((j * heads + h) * dv + c)];
            acc += w[j] * T(vj);
            vmax = std::max(vmax, std::abs(vj));
          }
          const T theirs = out.data[static_cast<size_t>((i * heads + h) * dv + c)];
          const double error = std::abs(as_double(T(acc / total - theirs)));
          // Softmax over T keys: exp, z - top, both sums and the division (proof: 3T roundings).
          const double bound = 1.01 * ((2 * eps_z + gamma(3.0 * static_cast<double>(tokens), u)) * vmax + u * std::abs(as_double(theirs)));
          if (error > 0) excess = std::max(excess, error / bound);
        }
      }
    return in_units_of_two_roundings<T>(excess);
  }
};

}  // namespace

void add_relative_properties(std::vector<property>& out) {
  out.push_back(on_implementations(make_property<bias_translation_invariance>(
      "alibi.translation_invariance", "ALiBi's bias depends on i - j only: shifting every position leaves it unchanged",
      law_kind::identity, {random_specs("alibi", expectation::holds)})));
  out.push_back(make_property<slopes_geometric>(
      "alibi.slopes_geometric",
      "slopes are geometric from 2^(-8/n) for n = 2^a heads; otherwise 2^(-8/n') then the odd terms of the 2n' sequence",
      law_kind::identity, {random_specs("alibi", expectation::holds), fixed_spec("alibi(heads=12)", expectation::holds)}));
  out.push_back(make_property<bucket_monotonic>(
      "t5.bucket_monotonic", "buckets lie in [0, buckets) and never fall as the distance grows within a sign",
      law_kind::inequality, {random_specs("t5", expectation::holds)}));
  out.push_back(on_implementations(make_property<bias_translation_invariance>(
      "t5.translation_invariance", "T5's bias depends on key - query only: shifting every position leaves it unchanged",
      law_kind::identity, {random_specs("t5", expectation::holds)})));
  out.push_back(make_property<attend_translation_invariance>(
      "txl.relative_only", "Transformer-XL's attention depends on positions only through i - j", law_kind::identity,
      {random_specs("txl", expectation::holds)}));
  out.push_back(make_property<score_decomposition>(
      "deberta.score_decomposition",
      "attend = softmax((c2c + c2p + p2c) / sqrt(3d)) v, the position terms depending on i - j only", law_kind::identity,
      {random_specs("deberta", expectation::holds)}));
  out.push_back(make_property<attend_translation_invariance>(
      "shaw.translation_invariance", "Shaw's attention depends on positions only through the clipped key - query distance",
      law_kind::identity, {random_specs("shaw", expectation::holds)}));
}


namespace {

const family_registration relative_registration{60, add_relative_properties};
const spec_generator_registration alibi_generator{"alibi", [] { return gen_alibi_spec(); }};
const spec_generator_registration t5_generator{"t5", [] { return gen_t5_spec(); }};
const spec_generator_registration shaw_generator{"shaw", [] { return gen_shaw_spec(); }};
const spec_generator_registration txl_generator{"txl", [] { return gen_txl_spec(); }};
const spec_generator_registration deberta_generator{"deberta", [] { return gen_deberta_spec(); }};

}  // namespace

}  // namespace pe::props
