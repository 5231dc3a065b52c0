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

// Per rotated dim: its partner, its angle |p w| and the attention factor, for one token row.
struct rotation_geometry {
  std::vector<std::int64_t> partner;  // -1: passes through
  std::vector<double> angle;          // |p w| of the pair
};

template <class Plan>
rotation_geometry geometry(const Plan& plan, const std::int64_t* row) {
  rotation_geometry g{std::vector<std::int64_t>(static_cast<std::size_t>(plan.dim), -1), std::vector<double>(static_cast<std::size_t>(plan.dim), 0)};
  for (std::size_t k = 0; k < plan.pairs.size(); ++k) {
    const auto& pr = plan.pairs[k];
    const double w = plan.freq.template omega<double>(static_cast<int>(k));
    const double a = std::abs(static_cast<double>(row[pr.axis]) * w);
    g.partner[pr.a] = pr.b, g.partner[pr.b] = pr.a;
    g.angle[pr.a] = g.angle[pr.b] = a;
  }
  return g;
}

}  // namespace

error_model error_model::of(dtype io, dtype working, const std::string& level) {
  error_model m{io, working, 4};
  if (level == "strict") m.angle_coefficient = 2;
  else if (level == "standard") m.angle_coefficient = 4;
  else if (level == "loose") m.angle_coefficient = 16;
  else {
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
    const std::int64_t tokens = in.x.shape[0], heads = in.x.shape[1], dim = in.x.shape[2], axes = in.pos_axes;
    double factor = 1;
    const double log_base = std::log(s.real("base"));
    if (s.scheme() == "rope") factor = std::abs(rope_frequencies::of(s, call_seq_len(in.pos)).attention_factor<double>());
    for (std::int64_t t = 0; t < tokens; ++t) {
      const std::int64_t* row = in.pos.data() + t * axes;
      const rotation_geometry g = s.scheme() == "rope"      ? geometry(rope_plan(s, call_seq_len(in.pos)), row)
                                  : s.scheme() == "rope_nd" ? geometry(rope_nd_plan(s), row)
                                                            : geometry(mrope_plan(s), row);
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t d = 0; d < dim; ++d) {
          const auto at = static_cast<std::size_t>((t * heads + h) * dim + d);
          if (g.partner[d] < 0) continue;  // pass-through: an exact copy, its own rounding only
          const double xa = std::abs(in.x.data[at]), xb = std::abs(in.x.data[static_cast<std::size_t>((t * heads + h) * dim + g.partner[d])]);
          // The pair turned by an angle off by (C + ln base) u_w (|p w| + 1): the frequency's
          // exponent 2i/r rounds to u_w and base^e amplifies that by ln base; the position, the
          // product and pow add C. sin and cos within u_w, products and sum within 3 u_w.
          out[0][at] += factor * (xa + xb) * ((c + log_base) * u_w * (g.angle[d] + 1) + 5 * u_w);
        }
    }
    return out;
  }
  if (op == "encode" && s.scheme() == "sinusoidal") {
    const std::int64_t dim = s.integer("dim");
    const bool interleaved = s.choice("layout") == "interleaved";
    const double log_base = std::log(s.real("base"));
    const auto freq = sinusoidal_frequencies::of(s);  // the scheme's own frequency law, every layout
    std::vector<double> w(static_cast<std::size_t>(dim / 2));
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = freq.omega<double>(static_cast<int>(i));
    for (std::size_t t = 0; t < in.pos.size(); ++t)
      for (std::int64_t j = 0; j < dim; ++j) {
        const auto i = static_cast<std::size_t>(interleaved ? j / 2 : j % (dim / 2));
        out[0][t * static_cast<std::size_t>(dim) + static_cast<std::size_t>(j)] +=
            (c + log_base) * u_w * (std::abs(static_cast<double>(in.pos[t]) * w[i]) + 1) + 2 * u_w;
      }
    return out;
  }
  if (op == "inv_freq" && rope_family) {
    // w = base^(-2i/r): the exponent's rounding amplified by ln base, pow and the division (and
    // a scaling's few operations) within C; the attention factor is a few operations.
    const double log_base = std::log(s.real("base"));
    for (std::size_t o = 0; o < out.size(); ++o)
      for (std::size_t k = 0; k < out[o].size(); ++k)
        out[o][k] += (exact[o].name == "inv_freq" ? c + log_base : c) * u_w * std::abs(exact[o].value.data[k]);
    return out;
  }
  // Everything else is a few working-precision operations per value (frequencies, slopes times
  // distances, table lookups): C u_w relative.
  for (std::size_t o = 0; o < out.size(); ++o)
    for (std::size_t k = 0; k < out[o].size(); ++k) out[o][k] += c * u_w * std::abs(exact[o].value.data[k]);
  return out;
}

}  // namespace pe::gate
