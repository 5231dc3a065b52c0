// The gate's error model (see tolerance.hpp and proofs/gate_tolerance.md).
#include "gate/tolerance.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/schemes/rope_nd.hpp"
#include "pe/schemes/sinusoidal.hpp"

namespace pe::gate {
namespace {

// Where pair k's frequency sits in its geometric law w = base^(-e): its chain index i (the
// number of products an iterated kernel takes to reach it) and its exponent fraction e.
struct exponent_position {
  int chain;
  double fraction;
};
exponent_position exponent_of(const rope_frequencies& f, int k) { return {k, 2.0 * k / static_cast<double>(f.rotary)}; }
exponent_position exponent_of(const axial_frequencies& f, int k) {
  const auto [d, i] = f.local[static_cast<std::size_t>(k)];
  return {static_cast<int>(i), 2.0 * static_cast<double>(i) / static_cast<double>(d)};
}
exponent_position exponent_of(const sinusoidal_frequencies& f, int k) {
  return {k, f.fairseq ? k / static_cast<double>(f.dim / 2 - 1) : 2.0 * k / static_cast<double>(f.dim)};
}

// The relative error of the base a kernel raises to -e, in units of u_w: the base's own rounding,
// and for NTK and dynamic NTK the rescaled base's few operations (proofs/gate_tolerance.md, step 2).
double base_error_units(const rope_frequencies& f) {
  if (!f.scaling || f.freqs) return 1;
  const spec& sc = *f.scaling;
  const double r = static_cast<double>(f.rotary), stretch = r / (r - 2);
  if (sc.scheme() == "ntk") return 4 + stretch * std::log(sc.real("factor"));
  if (sc.scheme() == "dynamic" && f.seq_len && *f.seq_len > sc.integer("original_max")) {
    const double factor = sc.real("factor"), ratio = static_cast<double>(*f.seq_len) / static_cast<double>(sc.integer("original_max"));
    const double bracket = factor * ratio - (factor - 1);  // >= 1: cancellation costs factor ratio / bracket
    return 4 + stretch * std::log(bracket) + stretch * (3 * factor * ratio / bracket + 1);
  }
  return 1;
}
double base_error_units(const axial_frequencies&) { return 1; }
double base_error_units(const sinusoidal_frequencies&) { return 1; }

// The absolute error of a blend weight w (YaRN's ramp, Llama 3's 1 - smooth) a kernel computes
// in working precision u (proofs/gate_tolerance.md, step 3), for pair k with unscaled frequency
// `plain` whose own relative error is `plain_error`.
double weight_error(const rope_frequencies& f, int k, double w, double plain, double plain_error, double u) {
  const spec& sc = *f.scaling;
  if (sc.scheme() == "yarn") {
    // w = (k - low) / span. Each correction dim r ln(L / (2 pi beta)) / (2 ln base) carries
    // E <= u (2 r / ln base + 6 |dim|) when formed in working precision. Truncated, it is an exact integer unless its untruncated
    // value lies within E of one, where a kernel may floor to the neighbour: a whole step.
    const auto [low, span] = f.yarn_ramp_range<double>();
    const double high = low + span;
    const auto [raw_low, raw_high] = f.yarn_correction_range<double>();
    const double r = static_cast<double>(f.rotary), ln_base = std::log(f.base);
    const auto dim_error = [&](double raw) { return u * (2 * r / ln_base + 6 * std::abs(raw)); };
    double e_low = dim_error(raw_low), e_high = dim_error(raw_high);
    if (f.yarn_truncates()) {
      const auto near_integer = [](double raw, double e) { return std::abs(raw - std::round(raw)) <= e; };
      e_low = near_integer(raw_low, e_low) ? 1 : 0;
      e_high = near_integer(raw_high, e_high) ? 1 : 0;
    }
    const double numerator = e_low + u * (std::abs(static_cast<double>(k)) + std::abs(low));
    const double denominator = e_low + e_high + u * (std::abs(low) + std::abs(high));
    return (numerator + std::abs(w) * denominator) / span + 2 * u * (std::abs(w) + 1);
  }
  // Llama 3: s = (L / lambda - lo) / (hi - lo) with lambda = 2 pi / plain: L / lambda carries
  // plain's error and three roundings; lo, hi are decimals (one rounding each).
  const double lo = sc.real("low_freq_factor"), hi = sc.real("high_freq_factor");
  const double turns = static_cast<double>(sc.integer("original_max")) * plain / (2 * M_PI);  // L / lambda
  const double s = 1 - w;
  return (turns * (plain_error + 3 * u) + 2 * u * lo + u * std::abs(turns - lo)) / (hi - lo) +
         std::abs(s) * u * ((hi + lo) / (hi - lo) + 2);
}

// How pair k's frequency and angle may be off in a correct kernel (proofs/gate_tolerance.md):
// |d omega| <= relative u_w omega + blend, |d theta| <= relative u_w (|p omega| + 1) + |p| blend.
struct pair_error {
  double omega = 0;     // the exact effective frequency
  double relative = 0;  // C + 4 |ln omega_geo| + kappa i + e (base error)
  double blend = 0;     // a blend weight's error times its lever (1 - 1/factor) plain, plus the blend's arithmetic
};

template <class Freq>
pair_error error_of_pair(const error_model& m, const Freq& f, int k) {
  pair_error p;
  p.omega = f.template omega<double>(k);
  if (p.omega == 0) return p;  // p-RoPE: a pass-through pair, never turned
  const double u_w = dtype_roundoff(m.working);
  const auto [chain, fraction] = exponent_of(f, k);
  double geometric = p.omega;  // the frequency the geometric law gives, before a scaling's factor
  if constexpr (std::is_same_v<Freq, rope_frequencies>) {
    const bool rescales_base = f.scaling && (f.scaling->scheme() == "ntk" || f.scaling->scheme() == "dynamic");
    if (f.scaling && !rescales_base) geometric = f.template omega_unscaled<double>(k);
  }
  p.relative = m.angle_coefficient + 4 * std::abs(std::log(geometric)) + m.chain_coefficient * chain + fraction * base_error_units(f);
  if constexpr (std::is_same_v<Freq, rope_frequencies>) {
    const auto w = f.template interpolation_weight<double>(k);
    if (w) {
      const double factor = f.scaling->real("factor"), plain = geometric;
      const double dw = weight_error(f, k, *w, plain, p.relative * u_w, u_w);
      // A weight clamped by a margin is exactly 0 or 1 in the kernel too: no blend error there.
      if (*w > -dw && *w < 1 + dw) p.blend = plain * (std::abs(1 - 1 / factor) * dw + 5 * u_w);
    }
  }
  return p;
}

template <class Plan>
std::vector<pair_error> errors_of_plan(const error_model& m, const Plan& plan) {
  std::vector<pair_error> out;
  for (std::size_t k = 0; k < plan.pairs.size(); ++k) out.push_back(error_of_pair(m, plan.freq, static_cast<int>(k)));
  return out;
}

// The angle allowance of a pair at position p.
double angle_error(const pair_error& e, std::int64_t p, double u_w) {
  if (e.omega == 0) return 0;
  const double position = std::abs(static_cast<double>(p));
  return e.relative * u_w * (position * e.omega + 1) + position * e.blend;
}

// rotate's bound added to out (one row per token), for any RoPE-family plan.
template <class Plan>
void add_rotation_bounds(const error_model& m, const Plan& plan, const op_inputs& in, double factor, std::vector<double>& out) {
  const std::int64_t tokens = in.x.shape[0], heads = in.x.shape[1], dim = in.x.shape[2], axes = in.pos_axes;
  const double u_w = dtype_roundoff(m.working), u_io = dtype_roundoff(m.io);
  // A kernel whose I/O dtype is narrower than its arithmetic may keep cos and sin in it (a cache
  // in the model's dtype) and multiply and add in it (PyTorch on bf16 tensors): three roundings.
  const double u_store = u_io > u_w ? u_io : 0;
  const auto errors = errors_of_plan(m, plan);
  const double factor_error = factor == 1 ? 0 : m.angle_coefficient * u_w;
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::size_t k = 0; k < plan.pairs.size(); ++k) {
      const auto& pr = plan.pairs[k];
      const double angle = angle_error(errors[k], in.pos[static_cast<std::size_t>(t * axes + pr.axis)], u_w);
      for (std::int64_t h = 0; h < heads; ++h) {
        const auto a = static_cast<std::size_t>((t * heads + h) * dim + pr.a), b = static_cast<std::size_t>((t * heads + h) * dim + pr.b);
        // The pair turned by an angle off by `angle`; sin and cos within u_w, the two products,
        // the sum and the attention factor within 4 u_w more, and an attention factor other than
        // 1 computed in a few operations: C u_w (proofs/gate_tolerance.md, step 5).
        const double moved = factor * (std::abs(in.x.data[a]) + std::abs(in.x.data[b])) * (angle + 5 * u_w + factor_error + 3 * u_store);
        out[a] += moved;
        out[b] += moved;
      }
    }
}

// Calls fn(plan, |attention factor|) with the RoPE-family plan of s (rope, rope_nd or mrope).
template <class Fn>
void with_rotation_plan(const spec& s, std::optional<std::int64_t> seq_len, Fn&& fn) {
  if (s.scheme() == "rope") {
    const auto plan = rope_plan(s, seq_len);
    fn(plan, std::abs(plan.freq.attention_factor<double>()));
  } else if (s.scheme() == "rope_nd") {
    fn(rope_nd_plan(s), 1.0);
  } else {
    fn(mrope_plan(s), 1.0);
  }
}

}  // namespace

error_model error_model::of(dtype io, dtype working, const std::string& level) {
  // C counts the roundings of one direct angle (proofs/gate_tolerance.md, step 2): the position,
  // pow or exp (one ulp: 2), the reciprocal, a scaling's factor and its division (2), the product.
  constexpr double direct_angle = 7;
  // kappa: an iterated kernel's angle of pair i took i products by a rounded theta_scale
  // (pow within one ulp: 2, the product: 1).
  constexpr double iterated_products = 3;
  error_model m{io, working, direct_angle, iterated_products};
  if (level == "strict") m.chain_coefficient = 0;  // direct angles only
  else if (level == "standard") {
  } else if (level == "loose") {
    m.angle_coefficient *= 4, m.chain_coefficient *= 4;
  } else {
    // An explicit coefficient C, from 1 up: below it the bound would not even cover the
    // rounding of the product p w itself (proofs/gate_tolerance.md).
    char* end = nullptr;
    const double c = std::strtod(level.c_str(), &end);
    if (level.empty() || end != level.c_str() + level.size() || !std::isfinite(c) || c < 1) {
      throw input_error(fmt::format("--tolerance '{}' is not strict, standard, loose or a number C >= 1 (the angle coefficient)", level));
    }
    m.angle_coefficient = c;
  }
  return m;
}

std::vector<std::vector<double>> output_bounds(const error_model& m, std::string_view op, const spec& s, const op_inputs& in,
                                               const std::vector<named_tensor<double>>& exact) {
  const double u_io = dtype_roundoff(m.io), u_w = dtype_roundoff(m.working);
  const double c = m.angle_coefficient;
  // Below the smallest normal of the I/O dtype its spacing is absolute: one spacing, so that an
  // output that should be 0 or subnormal may be off by one step of the dtype.
  const double tiny = subnormal_spacing(m.io);
  std::vector<std::vector<double>> out;
  for (const auto& e : exact) {
    std::vector<double> b(e.value.data.size());
    for (std::size_t k = 0; k < b.size(); ++k) b[k] = u_io * std::abs(e.value.data[k]) + tiny;  // the output's own rounding
    out.push_back(std::move(b));
  }
  if (op == "attend") return {attend_bounds(m, s, in, exact.at(0).value)};
  const bool rope_family = s.scheme() == "rope" || s.scheme() == "rope_nd" || s.scheme() == "mrope";
  if (op == "rotate" && rope_family) {
    with_rotation_plan(s, call_seq_len(in.pos), [&](const auto& plan, double factor) { add_rotation_bounds(m, plan, in, factor, out[0]); });
    return out;
  }
  if (op == "encode" && s.scheme() == "sinusoidal") {
    // Each value is sin or cos of an angle with RoPE's angle error; the function adds u_w.
    const std::int64_t dim = s.integer("dim");
    const bool interleaved = s.choice("layout") == "interleaved";
    const auto freq = sinusoidal_frequencies::of(s);  // the scheme's own frequency law, every layout
    std::vector<pair_error> errors;
    for (int i = 0; i < static_cast<int>(dim / 2); ++i) errors.push_back(error_of_pair(m, freq, i));
    for (std::size_t t = 0; t < in.pos.size(); ++t)
      for (std::int64_t j = 0; j < dim; ++j) {
        const auto i = static_cast<std::size_t>(interleaved ? j / 2 : j % (dim / 2));
        out[0][t * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)] += angle_error(errors[i], in.pos[t], u_w) + 2 * u_w;
      }
    return out;
  }
  if (op == "inv_freq" && rope_family) {
    // The frequencies are the angle's step 2 and 3 on their own; the attention factor (1, YaRN's
    // 0.1 ln s + 1, LongRoPE's square root) is a few operations: C u_w.
    std::vector<pair_error> errors;
    with_rotation_plan(s, std::nullopt, [&](const auto& plan, double) { errors = errors_of_plan(m, plan); });
    for (std::size_t o = 0; o < out.size(); ++o)
      for (std::size_t k = 0; k < out[o].size(); ++k) {
        if (exact[o].name == "inv_freq") out[o][k] += errors[k].relative * u_w * std::abs(exact[o].value.data[k]) + errors[k].blend;
        else out[o][k] += c * u_w * std::abs(exact[o].value.data[k]);
      }
    return out;
  }
  // Everything else is a few working-precision operations per value (frequencies, slopes times
  // distances, table lookups): C u_w relative.
  for (std::size_t o = 0; o < out.size(); ++o)
    for (std::size_t k = 0; k < out[o].size(); ++k) out[o][k] += c * u_w * std::abs(exact[o].value.data[k]);
  return out;
}

}  // namespace pe::gate
