// The gate's error model for attend (proofs/gate_tolerance.md, "attend"): score errors from the inputs' own
// errors and the dot products, their effect through softmax, and the weighted sum of the values.
#include <algorithm>
#include <cmath>

#include "gate/tolerance.hpp"
#include "pe/attention.hpp"
#include "properties/fp_bounds.hpp"

namespace pe::gate {
namespace {

using props::gamma;

// Errors of q, k and v as a correct kernel forms them in its working precision, before the
// scores: none for inputs taken as they are; the rotation's bound (its angle terms) for the RoPE
// family; the encoding's bound, the addition and the projection's dot products for the
// absolute encodings.
struct input_errors {
  std::vector<double> q, k, v;
};

input_errors input_side(const error_model& m, const spec& s, const attend_inputs& a, const std::vector<double>& q,
                        const std::vector<double>& k, const std::vector<double>& v, const std::vector<std::int64_t>& qpos,
                        const std::vector<std::int64_t>& kpos, std::int64_t axes) {
  input_errors e{std::vector<double>(q.size(), 0.0), std::vector<double>(k.size(), 0.0), std::vector<double>(v.size(), 0.0)};
  error_model in_working = m;  // values kept in the working format
  in_working.io = m.working;
  const double u_w = dtype_roundoff(m.working);
  if (is_rotary(s)) {
    const auto rotated_error = [&](const tensor<double>& x, const std::vector<std::int64_t>& pos, const std::vector<double>& exact, int role) {
      op_inputs in;
      in.x = x, in.pos = pos, in.pos_axes = axes;
      if (rotates_by_role(s)) in.role = role;  // queries 0, keys 1 (xPos)
      tensor<double> y(x.shape);
      y.data = exact;
      return output_bounds(in_working, "rotate", s, in, {{"y", y}}).at(0);
    };
    e.q = rotated_error(a.q, qpos, q, 0);
    e.k = rotated_error(a.k, kpos, k, 1);
    return e;
  }
  if (kind_of(s) == scheme_kind::input_side) {
    // q and k transformed by a few working-precision operations each (Llama 4's temperature:
    // the block's logarithm, a product and a sum, then the product with q): C u_w relative.
    for (std::size_t i = 0; i < q.size(); ++i) e.q[i] = m.angle_coefficient * u_w * std::abs(q[i]);
    for (std::size_t i = 0; i < k.size(); ++i) e.k[i] = m.angle_coefficient * u_w * std::abs(k[i]);
    return e;
  }
  if (!is_absolute(s)) return e;
  // X = x + PE(qpos), each element within e_pe + u_w |X|; q = X W within gamma_width sum |X||W| + sum e_X |W|.
  op_inputs at;
  at.pos = qpos;
  at.pos_axes = 1;
  const auto pe = run_op<double>("encode", s, at).at(0).value;
  const auto pe_error = output_bounds(in_working, "encode", s, at, {{"pe", pe}}).at(0);
  const std::int64_t tokens = a.x.shape[0], width = a.x.shape[1];
  std::vector<double> xs(a.x.data.size()), x_error(a.x.data.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    xs[i] = std::abs(a.x.data[i] + pe.data[i]);
    x_error[i] = pe_error[i] + u_w * xs[i];
  }
  const auto projected_error = [&](const tensor<double>& w) {
    const std::int64_t cols = w.shape[1];
    std::vector<double> out(static_cast<std::size_t>(tokens * cols), 0.0);
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t c = 0; c < cols; ++c) {
        double mag = 0, carried = 0;
        for (std::int64_t r = 0; r < width; ++r) {
          const double wr = std::abs(w.data[static_cast<std::size_t>(r * cols + c)]);
          mag += xs[static_cast<std::size_t>(t * width + r)] * wr;
          carried += x_error[static_cast<std::size_t>(t * width + r)] * wr;
        }
        out[static_cast<std::size_t>(t * cols + c)] = gamma(static_cast<double>(width), u_w) * mag + (1 + gamma(static_cast<double>(width), u_w)) * carried;
      }
    return out;
  };
  e.q = projected_error(a.wq), e.k = projected_error(a.wk), e.v = projected_error(a.wv);
  return e;
}

}  // namespace

std::vector<double> attend_bounds(const error_model& m, const spec& s, const op_inputs& in, const tensor<double>& exact) {
  const auto& a = in.attend;
  const double u_io = dtype_roundoff(m.io), u_w = dtype_roundoff(m.working), c = m.angle_coefficient;
  const double tiny = subnormal_spacing(m.io);
  mp_precision scope(113);  // magnitudes only: the exact q, k, v after the scheme's input-side changes
  const auto p = attend_scores(s, a);
  const std::int64_t n_q = p.queries, n_k = p.keys, heads = p.heads, d = p.dim, dv = p.value_dim, axes = p.axes;
  const auto &q = p.q, &k = p.k, &v = p.v;
  const auto &qpos = p.qpos, &kpos = p.kpos;
  input_errors e = input_side(m, s, a, q, k, v, qpos, kpos, axes);
  // A kernel whose I/O dtype is narrower than its arithmetic may store intermediates in it (HF
  // keeps rotated q, k in fp16; FlashAttention casts the weights P to fp16 before P V): each
  // formed value may round once more to the I/O dtype.
  const double u_store = u_io > u_w ? u_io : 0;
  const bool formed_qk = is_rotary(s) || is_absolute(s) || kind_of(s) == scheme_kind::input_side;
  if (formed_qk) {
    for (std::size_t i = 0; i < q.size(); ++i) e.q[i] += u_store * std::abs(q[i]);
    for (std::size_t i = 0; i < k.size(); ++i) e.k[i] += u_store * std::abs(k[i]);
  }
  if (is_absolute(s))
    for (std::size_t i = 0; i < v.size(); ++i) e.v[i] += u_store * std::abs(v[i]);
  // exp's results below the working format's smallest normal lose relative accuracy, or flush
  // to 0: each weight is off by at most that much absolutely (the normalising sum is >= 1).
  const double lowest_normal_w = lowest_normal(m.working);
  // The bias and its error: a computed bias (ALiBi's slope times distance) C u_w; a table's
  // entry (T5), handed over rounded to the I/O dtype (u_io), then added (C u_w).
  const std::vector<double>& bias = p.bias;
  const double bias_units = (behaviour_of(s).bias_table ? u_io : 0) + c * u_w;
  std::vector<double> bias_error;
  for (const double b : bias) bias_error.push_back(bias_units * std::abs(b));
  if (!bias.empty()) add_bias_kernel_errors(s, qpos, kpos, bias, u_w, bias_error);  // the scheme's own, per head and distance
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  std::vector<double> out(exact.data.size());
  std::vector<double> z(static_cast<std::size_t>(n_k)), dz(static_cast<std::size_t>(n_k));
  std::vector<bool> seen(static_cast<std::size_t>(n_k));
  for (std::int64_t h = 0; h < heads; ++h)
    for (std::int64_t i = 0; i < n_q; ++i) {
      // Scores z_ij = q_i . k_j / sqrt(d) + b and how far a correct kernel's may be off.
      double top = -INFINITY, eps = 0;
      std::int64_t keys = 0;
      for (std::int64_t j = 0; j < n_k; ++j) {
        seen[j] = !(a.causal && kpos[j * axes] > qpos[i * axes]);
        if (!seen[j]) continue;
        ++keys;
        double dot = 0, mag = 0, moved = 0;
        for (std::int64_t t = 0; t < d; ++t) {
          const auto qi = static_cast<std::size_t>(i * heads * d + h * d + t), kj = static_cast<std::size_t>(j * heads * d + h * d + t);
          dot += q[qi] * k[kj];
          mag += std::abs(q[qi] * k[kj]);
          moved += std::abs(q[qi]) * e.k[kj] + std::abs(k[kj]) * e.q[qi] + e.q[qi] * e.k[kj];
        }
        const auto bi = static_cast<std::size_t>((h * n_q + i) * n_k + j);
        z[j] = dot * scale + (bias.empty() ? 0 : bias[bi]);
        // The dot (gamma_d of its magnitude), the inputs' errors, 1/sqrt(d) and the product
        // (3 u_w), the bias's error and its addition (u_w |z|).
        // 3 u_w scale mag, not 3 u_w |dot scale|: a kernel may scale q first, and its products then
        // carry that rounding whatever their sum.
        dz[j] = scale * (gamma(static_cast<double>(d), u_w) * mag + moved) + 3 * u_w * scale * mag +
                (bias.empty() ? 0 : bias_error[bi]) + u_w * std::abs(z[j]);
        top = std::max(top, z[j]);
        eps = std::max(eps, dz[j]);
      }
      // Softmax: scores off by <= eps move every weight by a factor within e^(+-2 eps); the
      // exponent's argument a_j = z_j - max rounds (u_w |a_j|), exp and the normalising sum and
      // division add u_w and gamma_(S+2); C u_w more for online rescaling.
      const double growth = std::expm1(2 * eps);
      double total = 0;
      for (std::int64_t j = 0; j < n_k; ++j)
        if (seen[j]) total += std::exp(z[j] - top);
      for (std::int64_t col = 0; col < dv; ++col) {
        double err = 0, hull = 0;
        for (std::int64_t j = 0; j < n_k; ++j) {
          if (!seen[j]) continue;
          const auto vj = static_cast<std::size_t>(j * heads * dv + h * dv + col);
          const double weight = std::exp(z[j] - top) / total;
          const double rho = growth + u_w * (std::abs(z[j] - top) + c) + gamma(static_cast<double>(keys + 2), u_w) + u_store;
          const double f = (1 + rho) * (1 + gamma(static_cast<double>(keys), u_w));  // and the weighted sum's own
          if (weight > 0) err += std::isfinite(f) ? weight * ((f - 1) * std::abs(v[vj]) + f * e.v[vj]) : INFINITY;
          err += lowest_normal_w * (std::abs(v[vj]) + e.v[vj]);
          hull = std::max(hull, std::abs(v[vj]) + e.v[vj]);
        }
        const auto oi = static_cast<std::size_t>((i * heads + h) * dv + col);
        // An output is a convex combination of the values (its computed weights summing to within
        // gamma_(S+2) of 1, the sum adding gamma_S): never further off than that hull allows, which
        // keeps the bound finite where the scores cannot be resolved at all.
        const double hull_bound = hull * (1 + 1.01 * (gamma(static_cast<double>(keys), u_w) + gamma(static_cast<double>(keys + 2), u_w) + u_store)) +
                                  std::abs(exact.data[oi]);
        out[oi] = std::min(1.01 * err, hull_bound) + u_io * std::abs(exact.data[oi]) + tiny;
      }
    }
  return out;
}

}  // namespace pe::gate
