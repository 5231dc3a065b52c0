// Laws of rotate's backward pass (rotate_grad): it is the adjoint of rotate, and undoes it up to the attention factor.
#include <algorithm>

#include "pe/scheme.hpp"
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// One drawn pair of calls: two [T, H, D] tensors at the same position rows (and role, for xPos).
struct grad_case {
  std::int64_t tokens, heads, dim;
  std::vector<double> x, g;
  std::vector<std::int64_t> pos;
  std::int64_t role = -1;
};

// Positions up to rotation_position_limit; a role for a scale by role (xPos).
template <class T>
grad_case draw_grad_case(const backend<T>& b, const spec& s) {
  grad_case c;
  c.tokens = *rc::gen::inRange<std::int64_t>(1, 4).as("tokens");
  c.heads = *rc::gen::inRange<std::int64_t>(1, 3).as("heads");
  c.dim = *head_dim(s);
  const std::int64_t top = rotation_position_limit(b.max_position(), s);
  if (rotation_plan_of(s, std::nullopt).magnitude) c.role = *rc::gen::inRange<std::int64_t>(0, 2).as("role");
  c.x = b.stored(*gen_vector(c.tokens * c.heads * c.dim).as("x"));
  c.g = b.stored(*gen_vector(c.tokens * c.heads * c.dim).as("g"));
  for (std::int64_t e = 0; e < c.tokens * position_axes(s); ++e) c.pos.push_back(*gen_position(top));
  RC_CLASSIFY(*std::max_element(c.pos.begin(), c.pos.end()) >= (std::int64_t{1} << 24), "p>=2^24");
  return c;
}

op_inputs inputs_of_case(const spec& s, const grad_case& c, std::vector<double> values) {
  op_inputs in = rotate_inputs(std::move(values), c.tokens, c.heads, c.dim, c.pos, position_axes(s));
  in.role = c.role;
  return in;
}

// <rotate(x), g> = <x, rotate_grad(g)>, group by group (each pair's share is separately equal:
// the Jacobian is block-diagonal), for every scheme of the family, xPos's scales included.
// rotate_grad is called first, so that an implementation without it is UNSUPPORTED here, never
// INCOMPLETE.
template <class T>
struct grad_adjoint {
  static measure run(const backend<T>& b, const spec& s) {
    const auto c = draw_grad_case(b, s);
    const auto dx = b.output_with_error("rotate_grad", s, inputs_of_case(s, c, c.g), "dx");
    const auto y = b.output_with_error("rotate", s, inputs_of_case(s, c, c.x), "y");
    const double u = unit_roundoff<T>();
    // Relative to each share's |products|: outputs rounded once (u), products (u), a sum of n <= 2
    // (gamma_n), so that the exactness ladder reads the residual as a relative error.
    const double base = 1.01 * (2 * u + gamma(2, u));
    worst_part worst(base);
    for (std::int64_t row = 0; row < c.tokens * c.heads; ++row)
      for (const auto& [a, d] : rotation_groups(s)) {
        T forward(0), backward(0);
        double magnitude = 0, moved = 0, n = 0;
        for (const auto dim : {a, d}) {
          if (dim < 0) continue;
          n += 1;
          const auto e = static_cast<std::size_t>(row * c.dim + dim);
          const T p1 = y.value.data[e] * T(c.g[e]), p2 = T(c.x[e]) * dx.value.data[e];
          forward += p1, backward += p2;
          magnitude += std::abs(as_double(p1)) + std::abs(as_double(p2));
          // The outputs' errors move the shares by |g| e_y and |x| e_dx: g and x are exact.
          moved += std::abs(c.g[e]) * y.error[e] + std::abs(c.x[e]) * dx.error[e];
        }
        const double residual = abs_difference(forward, backward);
        if (magnitude > 0) worst.add(residual / magnitude, 1.01 * (2 * u + gamma(n, u)) + moved / magnitude);
        else worst.add(residual, moved);  // zero rows: both shares are 0 up to the outputs' errors
      }
    return worst.result(1);
  }
};

// rotate(rotate_grad(g)) = A^2 g, A the attention factor (R R^T = I): element by element. The
// backward output goes back in as stored values (binary64 for the reference, the I/O dtype for
// an implementation), so at MPFR precision it holds to that storing, not to 2^-p: an inequality.
template <class T>
struct grad_inverse {
  static measure run(const backend<T>& b, const spec& s) {
    const auto c = draw_grad_case(b, s);
    const auto dx = b.output_with_error("rotate_grad", s, inputs_of_case(s, c, c.g), "dx");
    std::vector<double> dx_values;
    for (const auto& v : dx.value.data) dx_values.push_back(as_double(v));
    dx_values = b.stored(std::move(dx_values));
    const auto z = b.output_with_error("rotate", s, inputs_of_case(s, c, dx_values), "y");
    const T af = attention_factor(b, s);
    const double u = unit_roundoff<T>(), factor = std::abs(as_double(af));
    worst_part worst(0);
    for (std::int64_t row = 0; row < c.tokens * c.heads; ++row)
      for (const auto& [a, d] : rotation_groups(s)) {
        // How far dx's values, as they went back in, may be from the exact backward output: their
        // error, their rounding to T (u), and storing them (the difference itself, known).
        double in_error = 0;
        for (const auto dim : {a, d}) {
          if (dim < 0) continue;
          const auto e = static_cast<std::size_t>(row * c.dim + dim);
          in_error += dx.error[e] + u * std::abs(as_double(dx.value.data[e])) + std::abs(as_double(T(dx.value.data[e] - T(dx_values[e]))));
        }
        for (const auto dim : {a, d}) {
          if (dim < 0) continue;
          const auto e = static_cast<std::size_t>(row * c.dim + dim);
          const bool paired = d >= 0;
          // A pass-through dim is copied both ways: z = g exactly.
          const T expected = paired ? T(af * af * T(c.g[e])) : T(c.g[e]);
          // z's rounding (u) and error; A rounded (u), A^2 and A^2 g (2u); a pair's input error
          // moved by the rotation (norm-preserving) times A.
          const double bound = paired ? 1.01 * (u * std::abs(as_double(z.value.data[e])) + 4 * u * std::abs(as_double(expected)) + factor * in_error) + z.error[e]
                                      : 1.01 * (u * std::abs(as_double(z.value.data[e])) + in_error) + z.error[e];
          worst.add(abs_difference(z.value.data[e], expected), bound);
        }
      }
    return worst.result(1);
  }
};

std::vector<target> rope_grad_targets(bool xpos) {
  std::vector<target> t = {random_specs("rope", expectation::holds), random_specs("rope_nd", expectation::holds),
                           random_specs("mrope", expectation::holds)};
  if (xpos) t.push_back(random_specs("xpos", expectation::holds));
  return t;
}

}  // namespace

void add_rope_grad_properties(std::vector<property>& out) {
  out.push_back(on_implementations(make_property<grad_adjoint>(
      "rope.grad_adjoint", "<rotate(x), g> = <x, rotate_grad(g)> for every pair: the backward pass is the exact vector-Jacobian product",
      law_kind::identity, rope_grad_targets(true))));
  out.push_back(on_implementations(make_property<grad_inverse>(
      "rope.grad_inverse", "rotate(rotate_grad(g)) = attention_factor^2 g: the backward pass undoes the turn (R R^T = I)",
      law_kind::inequality, rope_grad_targets(false))));
}

namespace {

const family_registration rope_grad_registration{32, add_rope_grad_properties};

}  // namespace

}  // namespace pe::props
