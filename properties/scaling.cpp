// Laws of the long-context RoPE scalings: linear is position interpolation, NTK's endpoints, YaRN's ramp, Llama 3's continuity, dynamic's identity below original_max.
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// rotate for one token per position, one head.
template <class T>
tensor<T> rotated_one_token_each(const backend<T>& b, const spec& s, std::vector<double> x, std::vector<std::int64_t> pos) {
  const auto tokens = static_cast<std::int64_t>(pos.size());
  return rotated(b, s, std::move(x), tokens, 1, std::move(pos));
}

// The spec without its scaling.
spec unscaled(const spec& s) {
  auto j = s.json();
  j.erase("scaling");
  return parse_spec_json(j);
}
spec with_scaling(const spec& s, nlohmann::json scaling) {
  auto j = s.json();
  j["scaling"] = std::move(scaling);
  return parse_spec_json(j);
}

// Linear scaling by s is position interpolation: every frequency is w / s, so with an integer
// factor, rotating at s m equals unscaled rotation at m.
template <class T>
struct linear_is_position_interpolation {
  static measure run(const backend<T>& b, const spec& s) {
    RC_PRE(s.has("scaling"));
    const double factor = s.nested("scaling").real("factor");
    const spec plain = unscaled(s);
    const auto scaled_w = frequencies(b, s), plain_w = frequencies(b, plain);
    const double u = unit_roundoff<T>();
    double residual = 0;
    for (size_t i = 0; i < plain_w.size(); ++i) residual = std::max(residual, relative_difference(T(scaled_w[i] * T(factor)), plain_w[i]));
    const double w_bound = 1.01 * 3 * u;  // two stored frequencies (u each) and the product (u)
    const auto m = *gen_position(std::int64_t{1} << 36).as("m");
    const auto x = *gen_vector(s.integer("dim")).as("x");
    const auto y_scaled = rotated_one_token_each(b, s, x, {static_cast<std::int64_t>(factor) * m}), y_plain = rotated_one_token_each(b, plain, x, {m});
    const double y_bound = 2 * u * std::max(max_abs(y_scaled), max_abs(y_plain));
    // One measure: the rotation difference in units of its bound, against the frequency bound.
    return {std::max(residual, max_abs_diff(y_scaled, y_plain) / y_bound * w_bound), w_bound, 1};
  }
};

// Static NTK-aware scaling (base * s^(r/(r-2))) keeps the fastest frequency and divides the
// slowest by exactly s: w'_0 = w_0 and w'_(P-1) = w_(P-1) / s.
template <class T>
struct ntk_endpoints {
  static measure run(const backend<T>& b, const spec& s) {
    RC_PRE(s.has("scaling"));
    const double factor = s.nested("scaling").real("factor");
    const auto scaled_w = frequencies(b, s), plain_w = frequencies(b, unscaled(s));
    const double residual = std::max(relative_difference(scaled_w.front(), plain_w.front()),
                                     relative_difference(T(scaled_w.back() * T(factor)), plain_w.back()));
    return {residual, 1.01 * 3 * unit_roundoff<T>(), 1};
  }
};

// YaRN: the ratio w'_i / w_i is 1 for every pair that turns at least beta_fast base^(2/r)
// times over original_max, 1/s for every pair that turns at most beta_slow base^(-2/r) times,
// monotone, and linear in i between; the attention factor is 0.1 ln s + 1 (HF: 1 for s <= 1;
// ggml: always). The one index of slack guards the binary64 turn counts and a correction
// dimension that lands on an integer, not floor/ceil themselves (proof).
template <class T>
struct yarn_ramp {
  static measure run(const backend<T>& b, const spec& s) {
    RC_PRE(s.has("scaling"));
    const spec& sc = s.nested("scaling");
    using std::abs;
    using std::log;
    const double factor = sc.real("factor"), fast = sc.real("beta_fast"), slow = sc.real("beta_slow");
    const double base = s.real("base"), rotary = static_cast<double>(s.integer("rotary_dim"));
    const auto scaled_w = frequencies(b, s), plain_w = frequencies(b, unscaled(s));
    const double u = unit_roundoff<T>(), tol = 1.01 * 3 * u;
    // The ratios and their ends in T, so the same body judges MPFR at its own precision.
    const T inverse = T(1) / T(factor);
    const T lo = factor >= 1 ? inverse : T(1), hi = factor >= 1 ? T(1) : inverse;
    std::vector<T> ratio;
    double residual = 0;
    const auto excess = [&](const T& v) { residual = std::max(residual, as_double(v) / tol); };
    for (size_t i = 0; i < plain_w.size(); ++i) {
      if (plain_w[i] == 0) { ratio.push_back(T(1)); continue; }  // p-RoPE's zeroed pairs
      const T r = scaled_w[i] / plain_w[i];
      ratio.push_back(r);
      // Against 1/f rounded to T (u more) and each ratio within 3u: 4u (proof).
      excess(std::max({T(lo - r), T(r - hi), T(0)}) / hi * T(3) / T(4));
      // Turns over original_max, from the unscaled frequency (binary64 is plenty: the thresholds are a base^(2/r) step away).
      const double turns = static_cast<double>(sc.integer("original_max")) * as_double(plain_w[i]) / (2 * M_PI);
      const double step = std::pow(base, 2 / rotary);
      if (turns >= fast * step * (1 + 1e-9)) excess(abs(T(r - T(1))));
      if (turns <= slow / step * (1 - 1e-9)) excess(abs(T(r - inverse)) * T(factor) * T(3) / T(4));  // 4u, as above
    }
    for (size_t i = 1; i < ratio.size(); ++i)  // monotone towards 1/s: two ratios of equal exact value, 3u each
      excess(std::max(T(0), factor >= 1 ? T(ratio[i] - ratio[i - 1]) : T(ratio[i - 1] - ratio[i])) / T(2));
    const auto inside = [&](size_t k) { return ratio[k] > lo * (T(1) + T(4 * u)) && ratio[k] < hi * (T(1) - T(4 * u)); };  // 1 + 4u in T, not in binary64
    for (size_t i = 1; i + 1 < ratio.size(); ++i)  // linear strictly inside the ramp
      // Three ratios (3u each) and the differences' own roundings: 3.28u at worst against 3.03u (proof).
      if (inside(i - 1) && inside(i) && inside(i + 1)) excess(abs(T(ratio[i + 1] - T(2) * ratio[i] + ratio[i - 1])) / T(4 * 1.1));
    const bool ggml = sc.choice("magnitude") == "ggml";
    if (!sc.has("attention_factor") && !sc.has("mscale")) {
      const T expected = ggml || factor > 1 ? T(log(T(factor)) / T(10) + T(1)) : T(1);  // the paper's exact 0.1
      excess(T(relative_difference(attention_factor(b, s), expected) / 2));
    }
    return {residual * tol, tol, 1};
  }
};

// Llama 3.1's map from w to w' is continuous and never falls as original_max grows: moving
// original_max by one token across a band edge moves a frequency by at most the map's
// Lipschitz bound w (1 - 1/f) hi / ((hi - lo)(L - 1)), never by a jump.
template <class T>
struct llama3_continuity {
  static measure run(const backend<T>& b, const spec& s) {
    RC_PRE(s.has("scaling"));
    const spec& sc = s.nested("scaling");
    const double f = sc.real("factor"), lo = sc.real("low_freq_factor"), hi = sc.real("high_freq_factor");
    const auto plain_w = frequencies(b, unscaled(s));
    const auto i = static_cast<size_t>(*rc::gen::inRange<std::int64_t>(0, static_cast<std::int64_t>(plain_w.size())).as("i"));
    const double w = as_double(plain_w[i]);
    RC_PRE(w > 0);
    const double edge = *rc::gen::element(lo, hi).as("edge");
    const double wavelength = 2 * M_PI / w;
    const double l_edge = std::ceil(edge * wavelength);  // the band edge L/edge passes wavelength between L-1 and L
    RC_PRE(l_edge >= 3 && l_edge < 1e15);
    const auto L = static_cast<std::int64_t>(l_edge);
    const auto at = [&](std::int64_t original) {
      return frequencies(b, with_scaling(s, {{"scheme", "llama3"}, {"factor", f}, {"low_freq_factor", lo}, {"high_freq_factor", hi},
                                          {"original_max", original}}))[i];
    };
    const T before = at(L - 1), after = at(L);
    const double u = unit_roundoff<T>();
    const double lipschitz = w * std::abs(1 - 1 / f) * hi / ((hi - lo) * static_cast<double>(L - 1));
    const double bound = 1.01 * (lipschitz + 4 * u * w);
    const double moved = std::abs(as_double(T(after - before)));
    // A longer original_max counts more pairs as short-wavelength (kept): w' never falls with it.
    const double fell = f >= 1 ? std::max(0.0, as_double(T(before - after))) : 0.0;
    return {fell > 4 * u * w ? INFINITY : moved, bound, w};
  }
};

// Dynamic NTK is plain RoPE while seq_len <= original_max (bit for bit), and beyond it only
// lowers frequencies (w'_i <= w_i) with no attention factor.
template <class T>
struct dynamic_reduces_below_original {
  static measure run(const backend<T>& b, const spec& s) {
    RC_PRE(s.has("scaling"));
    const spec& sc = s.nested("scaling");
    const std::int64_t original = sc.integer("original_max");
    const auto seq = *rc::gen::weightedOneOf<std::int64_t>(
        {{1, rc::gen::inRange<std::int64_t>(1, original + 1)}, {1, rc::gen::inRange<std::int64_t>(original + 1, 64 * original)}}).as("seq");
    RC_CLASSIFY(seq <= original, "seq_len<=original_max");
    const spec at = with_scaling(s, {{"scheme", "dynamic"}, {"factor", sc.real("factor")}, {"original_max", original}, {"seq_len", seq}});
    const spec plain = unscaled(s);
    const double u = unit_roundoff<T>();
    if (seq <= original) {
      const auto x = *gen_vector(s.integer("dim")).as("x");
      const auto p = *gen_position(seq - 1).as("p");
      return {max_abs_diff(rotated_one_token_each(b, at, x, {p}), rotated_one_token_each(b, plain, x, {p})), 0, 1};
    }
    const auto scaled_w = frequencies(b, at), plain_w = frequencies(b, plain);
    double residual = relative_difference(attention_factor(b, at), T(1));
    for (size_t i = 0; i < plain_w.size(); ++i)
      residual = std::max(residual, std::max(0.0, as_double(T(scaled_w[i] - plain_w[i]))) / std::max(as_double(plain_w[i]), 1e-300));
    return {residual, 1.01 * 2 * u, 1};
  }
};

target scaled_specs(const std::string& kind, bool integer_factor = false, std::int64_t min_base = 10) {
  return random_specs("rope", "rope", expectation::holds,
                      gen_rope_spec(rope_options{.scaling = kind, .truncate_low = false, .integer_factor = integer_factor,
                                                 .min_base = min_base}));
}

}  // namespace

void add_scaling_properties(std::vector<property>& out) {
  out.push_back(make_property<linear_is_position_interpolation>(
      "scaling.linear_is_position_interpolation",
      "linear scaling by s divides every frequency by s: rotating at s m equals unscaled rotation at m",
      law_kind::identity, {scaled_specs("linear", true)}));
  out.push_back(make_property<ntk_endpoints>(
      "scaling.ntk_endpoints", "NTK-aware base * s^(r/(r-2)) keeps the fastest frequency and divides the slowest by exactly s",
      law_kind::identity, {scaled_specs("ntk")}));
  out.push_back(make_property<yarn_ramp>(
      "scaling.yarn_ramp",
      "YaRN keeps pairs that turn more than beta_fast times over original_max, divides those turning fewer than beta_slow by s, "
      "ramps linearly between; attention factor 0.1 ln s + 1",
      law_kind::inequality,
      // Bases from 1000: with base 10 and a small head the whole correction range lies past the
      // last pair, HF clamps high = r - 1 below low, the ramp's slope turns negative and pairs
      // that turn thousands of times get interpolated. That divergence from the paper is pinned
      // by the fixed target, which must fail.
      {scaled_specs("yarn", false, 1000),
       fixed_spec("rope(dim=2, base=10, scaling=yarn(factor=1.25, original_max=32768, truncate=false))", expectation::fails)}));
  out.push_back(make_property<llama3_continuity>(
      "scaling.llama3_continuity",
      "the Llama 3.1 frequency map is continuous at its band edges: one token more of original_max moves a frequency by at most "
      "its Lipschitz bound",
      law_kind::inequality, {scaled_specs("llama3")}));
  out.push_back(make_property<dynamic_reduces_below_original>(
      "scaling.dynamic_reduces_below_original",
      "dynamic NTK is plain RoPE while seq_len <= original_max and only lowers frequencies beyond it",
      law_kind::inequality, {scaled_specs("dynamic")}));
}


namespace {

const family_registration scaling_registration{50, add_scaling_properties};

}  // namespace

}  // namespace pe::props
