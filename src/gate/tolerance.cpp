// The gate's error model (see tolerance.hpp and proofs/gate_tolerance.md).
#include "gate/tolerance.hpp"

#include "gate/gate_ops.hpp"
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "gate/gate_ops.hpp"
#include "pe/error.hpp"
#include "pe/parallel.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/schemes/rope_kernel_errors.hpp"
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

double base_error_units(const axial_frequencies&) { return 1; }
double base_error_units(const sinusoidal_frequencies&) { return 1; }

// How pair k's frequency and angle may be off in a correct kernel (proofs/gate_tolerance.md):
// |d omega| <= relative u_w omega + blend, |d theta| <= relative u_w (|p omega| + 1) + |p| blend
// (angle_error).
struct pair_error {
  double omega = 0;     // the exact effective frequency
  double relative = 0;  // C + 4 |ln omega_geo| + kappa i + e (base error)
  double blend = 0;     // a blend weight's error times its lever (1 - 1/factor) plain, plus the blend's arithmetic
};

// The model's one angle error term for pair e: relative u_w per unit of `turned`, the magnitude of
// what the kernel formed from the frequency, plus the blend's error at `lever`. The angle at
// position p turned |p| omega + 1 (the 1: rounding the product p omega itself) at lever |p|; the
// frequency alone turned omega at lever 1; the unscaled frequency, before any blend, turned 1
// (a relative error) at lever 0. A pass-through pair (omega = 0) has relative = blend = 0: no error.
double angle_error(const pair_error& e, double u_w, double turned, double lever) { return e.relative * u_w * turned + lever * e.blend; }

// angle_error at position p.
double angle_error_at(const pair_error& e, std::int64_t p, double u_w) {
  const double position = std::abs(static_cast<double>(p));
  return angle_error(e, u_w, position * e.omega + 1, position);
}

template <class Freq>
pair_error error_of_pair(const error_model& m, const Freq& f, int k) {
  pair_error p;
  p.omega = f.template omega<double>(k);
  if (p.omega == 0) return p;  // p-RoPE: a pass-through pair, never turned
  const double u_w = dtype_roundoff(m.working);
  const auto [chain, fraction] = exponent_of(f, k);
  double geometric = p.omega;  // the frequency the geometric law gives, before a scaling's factor
  if constexpr (std::is_same_v<Freq, rope_frequencies>) {
    if (f.scaling && !rescales_base(f)) geometric = f.template omega_unscaled<double>(k);
  }
  p.relative = m.angle_coefficient + 4 * std::abs(std::log(geometric)) + m.chain_coefficient * chain + fraction * base_error_units(f);
  if constexpr (std::is_same_v<Freq, rope_frequencies>) {
    const auto w = f.template interpolation_weight<double>(k);
    if (w) {
      const double factor = f.scaling->real("factor"), plain = geometric;
      const double dw = weight_error(f, k, *w, plain, angle_error(p, u_w, 1, 0), u_w);
      // A weight clamped by a margin is exactly 0 or 1 in the kernel too: no blend error there.
      if (*w > -dw && *w < 1 + dw) p.blend = plain * (std::abs(1 - 1 / factor) * dw + 5 * u_w);
    }
  }
  return p;
}

std::vector<pair_error> errors_of_plan(const error_model& m, const rotary_plan& plan) {
  std::vector<pair_error> out;
  for (std::size_t k = 0; k < plan.pairs.size(); ++k)
    std::visit([&](const auto& f) { out.push_back(error_of_pair(m, f, static_cast<int>(k))); }, plan.freq.law);
  return out;
}

// xPos's scale zeta^(s p/sb) as a correct kernel forms it, relative: zeta in six roundings
// (within 6 u_w), p/sb within 2 u_w, so the exponent (p/sb) ln zeta is off by at most
// |p|/sb (2 |ln zeta| + 6) u_w absolute, and pow or exp adds one ulp (2 u_w): within
// expm1(C u_w |p|/sb (|ln zeta| + 1)) + C u_w (proofs/gate_tolerance.md, "xPos's scale").
double magnitude_error(const error_model& m, const pair_magnitude& g, int k, std::int64_t p, double u_w) {
  const double exponent = std::abs(static_cast<double>(p)) / g.scale_base * (std::abs(g.log_zeta<double>(k)) + 1);
  return std::expm1(m.angle_coefficient * u_w * exponent) + m.angle_coefficient * u_w;
}

// rotate's bound added to out (one row per token) for rows x [T, H, D] at the call's position rows
// (in.pos, in.pos_axes) turned as `role` (xPos; none for a pure rotation), for any rotary plan.
void add_rotation_bounds(const error_model& m, const rotary_plan& plan, const tensor<double>& x, const op_inputs& in,
                         std::optional<rotation_role> role, std::vector<double>& out) {
  require_role(plan.magnitude, role);
  const double factor = std::abs(plan.freq.attention_factor<double>());
  const std::int64_t tokens = x.shape[0], heads = x.shape[1], dim = x.shape[2], axes = in.pos_axes;
  const double u_w = dtype_roundoff(m.working), u_io = dtype_roundoff(m.io);
  // A kernel whose I/O dtype is narrower than its arithmetic may keep cos and sin in it (a cache
  // in the model's dtype) and multiply and add in it (PyTorch on bf16 tensors): three roundings.
  const double u_store = u_io > u_w ? u_io : 0;
  const auto errors = errors_of_plan(m, plan);
  const double factor_error = factor == 1 ? 0 : m.angle_coefficient * u_w;
  // Underflow (proofs/gate_tolerance.md, "Underflow"): a kernel may flush its working format's
  // subnormal inputs and results to 0 (DAZ and FTZ: -ffast-math, CUDA's -ftz), moving a pair's
  // output by less than (2 A s + 5) times that format's smallest normal; one that multiplies and
  // adds in the I/O dtype rounds three results there with up to half its subnormal spacing each.
  const double lowest_normal_w = lowest_normal(m.working);
  const double underflow_store = u_store > 0 ? 2 * subnormal_spacing(m.io) : 0;
  // Token t's rows of out.
  const auto bound_token = [&](std::int64_t t) {
    for (std::size_t k = 0; k < plan.pairs.size(); ++k) {
      const auto& pr = plan.pairs[k];
      const std::int64_t p = in.pos[static_cast<std::size_t>(t * axes + pr.axis)];
      const double angle = angle_error_at(errors[k], p, u_w);
      // xPos: the pair is also scaled, by a scale within magnitude_error of the exact one.
      const int pair = static_cast<int>(k);
      const double scale = plan.magnitude ? plan.magnitude->at<double>(pair, p, *role) : 1.0;
      const double scale_error = plan.magnitude ? magnitude_error(m, *plan.magnitude, pair, p, u_w) : 0.0;
      for (std::int64_t h = 0; h < heads; ++h) {
        const auto a = static_cast<std::size_t>((t * heads + h) * dim + pr.a), b = static_cast<std::size_t>((t * heads + h) * dim + pr.b);
        // The pair turned by an angle off by `angle`; sin and cos within u_w, the two products,
        // the sum and the attention factor within 4 u_w more, and an attention factor other than
        // 1 computed in a few operations: C u_w (proofs/gate_tolerance.md, step 5).
        const double moved =
            factor * scale * (std::abs(x.data[a]) + std::abs(x.data[b])) * (angle + 5 * u_w + factor_error + 3 * u_store + scale_error);
        const double underflow = (2 * factor * scale + 5) * lowest_normal_w + underflow_store;
        out[a] += moved + underflow;
        out[b] += moved + underflow;
      }
    }
  };
  // Tokens split across the worker threads, each writing its own rows (an audit's calls hold
  // millions of elements).
  parallel_ranges(tokens, std::max<std::int64_t>(1, 8192 / std::max<std::int64_t>(1, heads * dim)), [&](std::int64_t first, std::int64_t end, int) {
    for (std::int64_t t = first; t < end; ++t) bound_token(t);
  });
}

}  // namespace

std::string working_precision(dtype io, const std::string& working) {
  const std::string w = working.empty() ? (io == dtype::f64 ? "f64" : "f32") : working;
  if (w != "f32" && w != "f64") throw input_error(fmt::format("--working '{}' is not f32 or f64", w));
  return w;
}

error_model error_model::of(dtype io, dtype working, const std::string& level) {
  // C counts the roundings of one direct angle (proofs/gate_tolerance.md, step 2): the position,
  // pow or exp (one ulp: 2), the reciprocal, a scaling's factor and its division (2), the product.
  constexpr double direct_angle = 7;
  // kappa: an iterated kernel's angle of pair i took i products by a rounded theta_scale
  // (pow within one ulp: 2, the product: 1).
  constexpr double iterated_products = 3;
  error_model m{io, working, io, direct_angle, iterated_products};
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

void add_bias_kernel_errors(const spec& s, const std::vector<std::int64_t>& qpos, const std::vector<std::int64_t>& kpos,
                            const std::vector<double>& bias, double u_w, std::vector<double>& out) {
  const auto& error = behaviour_of(s).bias_error;
  if (!error) return;
  const auto n_q = static_cast<std::int64_t>(qpos.size()), n_k = static_cast<std::int64_t>(kpos.size());
  for (std::size_t e = 0; e < bias.size(); ++e) {
    const auto h = static_cast<std::int64_t>(e) / (n_q * n_k), i = static_cast<std::int64_t>(e) / n_k % n_q, j = static_cast<std::int64_t>(e) % n_k;
    const double distance = std::abs(static_cast<double>(qpos[static_cast<std::size_t>(i)]) - static_cast<double>(kpos[static_cast<std::size_t>(j)]));
    out[e] += error(s, h, distance, bias[e], u_w);
  }
}

std::int64_t drawn_position_limit(const spec& s, const error_model& m, std::int64_t max_pos) {
  if (!is_rotary(s)) return max_pos;
  const auto plan = rotation_plan_of(s, std::nullopt);
  if (!plan.magnitude) return max_pos;
  const int emax = std::min(dtype_format(m.io).emax, dtype_format(m.working).emax);
  return std::min(max_pos, plan.magnitude->positions_within(emax / 2));
}

namespace bounds {

// A few working-precision operations per value (frequencies, slopes times distances, table
// lookups): C u_w relative.
void relative(const error_model& m, const spec&, const op_inputs&, const std::vector<named_tensor<double>>& exact,
              std::vector<std::vector<double>>& out) {
  const double c = m.angle_coefficient, u_w = dtype_roundoff(m.working);
  for (std::size_t o = 0; o < out.size(); ++o)
    for (std::size_t k = 0; k < out[o].size(); ++k) out[o][k] += c * u_w * std::abs(exact[o].value.data[k]);
}

void encode(const error_model& m, const spec& s, const op_inputs& in, const std::vector<named_tensor<double>>& exact,
            std::vector<std::vector<double>>& out) {
  const auto& b = behaviour_of(s);
  const auto phases = b.phases ? b.phases(s) : std::nullopt;
  if (!phases) return relative(m, s, in, exact, out);
  // Each value is sin or cos of an angle with RoPE's angle error; the function adds u_w.
  const double u_w = dtype_roundoff(m.working);
  const auto width = phases->pair_of_component.size();
  std::vector<pair_error> errors;
  for (const int i : phases->pair_of_component) {
    while (errors.size() <= static_cast<std::size_t>(i)) errors.push_back(error_of_pair(m, phases->freq, static_cast<int>(errors.size())));
  }
  for (std::size_t t = 0; t < in.pos.size(); ++t)
    for (std::size_t j = 0; j < width; ++j) {
      out[0][t * width + j] += angle_error_at(errors[static_cast<std::size_t>(phases->pair_of_component[j])], in.pos[t], u_w) + 2 * u_w;
    }
}

void inv_freq(const error_model& m, const spec& s, const op_inputs&, const std::vector<named_tensor<double>>& exact,
              std::vector<std::vector<double>>& out) {
  // The frequencies are the angle's step 2 and 3 on their own; the attention factor (1, YaRN's
  // 0.1 ln s + 1, LongRoPE's square root) is a few operations: C u_w.
  const double c = m.angle_coefficient, u_w = dtype_roundoff(m.working);
  const std::vector<pair_error> errors = errors_of_plan(m, rotation_plan_of(s, std::nullopt));
  for (std::size_t o = 0; o < out.size(); ++o)
    for (std::size_t k = 0; k < out[o].size(); ++k) {
      if (exact[o].name == "inv_freq") out[o][k] += angle_error(errors[k], u_w, std::abs(exact[o].value.data[k]), 1);
      else out[o][k] += c * u_w * std::abs(exact[o].value.data[k]);
    }
}

void rotate(const error_model& m, const spec& s, const op_inputs& in, const std::vector<named_tensor<double>>&,
            std::vector<std::vector<double>>& out) {
  add_rotation_bounds(m, rotation_plan_of(s, call_seq_len(in.pos)), in.x, in, role_of(in), out[0]);
}

// rotate's bound on each output: q_out is rotate's y for x = q (xPos: as queries), k_out for x = k
// (as keys); a fused kernel computes each as rotate does (proofs/gate_tolerance.md, "rotate_qk").
// The outputs are found by name: a law asks for one of them at a time.
void rotate_qk(const error_model& m, const spec& s, const op_inputs& in, const std::vector<named_tensor<double>>& exact,
               std::vector<std::vector<double>>& out) {
  const rotary_plan plan = rotation_plan_of(s, call_seq_len(in.pos));
  for (std::size_t o = 0; o < exact.size(); ++o) {
    const bool keys = exact[o].name == "k_out";
    const auto role = plan.magnitude ? std::optional(keys ? rotation_role::key : rotation_role::query) : std::nullopt;
    add_rotation_bounds(m, plan, keys ? in.k : in.x, in, role, out[o]);
  }
}

// The application alone (proofs/gate_tolerance.md, "apply_tables"): two products and their sum
// in the working precision, 3 u_w of |x_a c| + |x_b s|, three more roundings where the kernel
// multiplies and adds in a narrower I/O dtype, and a flushed subnormal's few smallest normals.
void apply_tables(const error_model& m, const spec& s, const op_inputs& in, const std::vector<named_tensor<double>>&,
                  std::vector<std::vector<double>>& out) {
  const auto pairs = rotation_plan_of(s, std::nullopt).pairs;
  const double u_w = dtype_roundoff(m.working), u_io = dtype_roundoff(m.io);
  const double u_store = u_io > u_w ? u_io : 0;
  const double underflow = 3 * lowest_normal(m.working) + (u_store > 0 ? 2 * subnormal_spacing(m.io) : 0);
  const std::int64_t tokens = in.x.shape.at(0), heads = in.x.shape.at(1), dim = in.x.shape.at(2);
  const auto width = static_cast<std::int64_t>(pairs.size());
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t k = 0; k < width; ++k) {
      const double c = std::abs(in.cos.data[static_cast<std::size_t>(t * width + k)]), sn = std::abs(in.sin.data[static_cast<std::size_t>(t * width + k)]);
      const auto& pr = pairs[static_cast<std::size_t>(k)];
      for (std::int64_t h = 0; h < heads; ++h) {
        const auto a = static_cast<std::size_t>((t * heads + h) * dim + pr.a), b = static_cast<std::size_t>((t * heads + h) * dim + pr.b);
        const double xa = std::abs(in.x.data[a]), xb = std::abs(in.x.data[b]);
        out[0][a] += (xa * c + xb * sn) * (3 * u_w + 3 * u_store) + underflow;
        out[0][b] += (xa * sn + xb * c) * (3 * u_w + 3 * u_store) + underflow;
      }
    }
}

void bias(const error_model& m, const spec& s, const op_inputs& in, const std::vector<named_tensor<double>>& exact,
          std::vector<std::vector<double>>& out) {
  add_bias_kernel_errors(s, in.qpos, in.kpos, exact[0].value.data, dtype_roundoff(m.working), out[0]);
  relative(m, s, in, exact, out);
}

// attend's own model (attend_tolerance.cpp) holds the output's rounding too: it replaces `out`.
void attend(const error_model& m, const spec& s, const op_inputs& in, const std::vector<named_tensor<double>>& exact,
            std::vector<std::vector<double>>& out) {
  out = {attend_bounds(m, s, in, exact.at(0).value)};
}

}  // namespace bounds

std::vector<std::vector<double>> output_bounds(const error_model& m, std::string_view op, const spec& s, const op_inputs& in,
                                               const std::vector<named_tensor<double>>& exact) {
  const double u_io = dtype_roundoff(m.io);
  // Below the smallest normal of the I/O dtype its spacing is absolute: one spacing, so that an
  // output that should be 0 or subnormal may be off by one step of the dtype.
  const double tiny = subnormal_spacing(m.io);
  std::vector<std::vector<double>> out;
  for (const auto& e : exact) {
    std::vector<double> b(e.value.data.size());
    parallel_ranges(static_cast<std::int64_t>(b.size()), 8192, [&](std::int64_t first, std::int64_t end, int) {
      for (auto k = static_cast<std::size_t>(first); k < static_cast<std::size_t>(end); ++k) b[k] = u_io * std::abs(e.value.data[k]) + tiny;  // the output's own rounding
    });
    out.push_back(std::move(b));
  }
  gate_op_of(op).bounds(m, s, in, exact, out);
  return out;
}

}  // namespace pe::gate
