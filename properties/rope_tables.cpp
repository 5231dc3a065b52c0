// Laws of apply_tables: handed the cos and sin of the spec's own angles, it is rotate without the attention factor.
#include <algorithm>
#include <cmath>

#include "pe/scheme.hpp"
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// A · apply_tables(x, cos θ_p, sin θ_p) = rotate(x, p), element by element, with the tables as the
// backend stores them (proofs/rope.tables_match_rotate.md). apply_tables is called first, so that an
// implementation without it is UNSUPPORTED here, never INCOMPLETE.
template <class T>
struct tables_match_rotate {
  static measure run(const backend<T>& b, const spec& s) {
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 4).as("tokens"), heads = *rc::gen::inRange<std::int64_t>(1, 3).as("heads");
    const std::int64_t dim = *head_dim(s), axes = position_axes(s);
    const auto x = b.stored(*gen_vector(tokens * heads * dim).as("x"));
    std::vector<std::int64_t> pos;
    for (std::int64_t e = 0; e < tokens * axes; ++e) pos.push_back(*gen_position(std::min(b.max_position(), std::int64_t{1} << 40)));
    op_inputs in = rotate_inputs(x, tokens, heads, dim, pos, axes);
    const auto [cos, sin] = angle_tables(s, in);  // each the exact value rounded to binary64
    in.cos = cos, in.sin = sin;
    in.cos.data = b.stored(cos.data), in.sin.data = b.stored(sin.data);
    const auto z = b.output_with_error("apply_tables", s, in, "y");
    const auto y = b.output_with_error("rotate", s, rotate_inputs(x, tokens, heads, dim, pos, axes), "y");
    const T af = attention_factor(b, s);
    const double u = unit_roundoff<T>(), factor = std::abs(as_double(af));
    // rotation_groups: the plan's pairs in order (pair k is the tables' column k), then each
    // pass-through dim alone.
    const auto groups = rotation_groups(s);
    const auto width = in.cos.shape.at(1);
    worst_part worst(0);
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t h = 0; h < heads; ++h) {
        const std::int64_t row = (t * heads + h) * dim;
        for (std::int64_t k = 0; k < static_cast<std::int64_t>(groups.size()); ++k) {
          const auto [a, b] = groups[static_cast<std::size_t>(k)];
          if (b < 0) {  // copied by both
            const auto i = static_cast<std::size_t>(row + a);
            worst.add(abs_difference(z.value.data[i], y.value.data[i]), z.error[i] + y.error[i]);
            continue;
          }
          const auto e = static_cast<std::size_t>(t * width + k);
          // How far the stored tables are from the exact cos and sin: binary64's rounding (2^-53)
          // and the backend's storing (the difference itself).
          const double dc = 0x1p-53 * std::abs(cos.data[e]) + std::abs(cos.data[e] - in.cos.data[e]);
          const double ds = 0x1p-53 * std::abs(sin.data[e]) + std::abs(sin.data[e] - in.sin.data[e]);
          const double xa = std::abs(x[static_cast<std::size_t>(row + a)]), xb = std::abs(x[static_cast<std::size_t>(row + b)]);
          for (const auto& [d, moved] : {std::pair{a, dc * xa + ds * xb}, std::pair{b, ds * xa + dc * xb}}) {
            const auto i = static_cast<std::size_t>(row + d);
            const T scaled = af * z.value.data[i];
            // z's and y's rounding (u each, z's times A), A rounded and the product (2u), the
            // tables' error moved by A, and both outputs' allowances.
            const double bound = 1.01 * (u * std::abs(as_double(y.value.data[i])) + 3 * u * std::abs(as_double(scaled)) + factor * moved) +
                                 factor * z.error[i] + y.error[i];
            worst.add(abs_difference(scaled, y.value.data[i]), bound);
          }
        }
      }
    return worst.result(1);
  }
};

}  // namespace

void add_rope_tables_properties(std::vector<property>& out) {
  out.push_back(on_implementations(make_property<tables_match_rotate>(
      "rope.tables_match_rotate", "attention_factor * apply_tables(x, cos(theta_p), sin(theta_p)) = rotate(x, p): handed the spec's own angles, the tables give the rotation",
      law_kind::inequality,
      {random_specs("rope", expectation::holds), random_specs("rope_nd", expectation::holds), random_specs("mrope", expectation::holds)})));
}

namespace {

const family_registration rope_tables_registration{33, add_rope_tables_properties};

}  // namespace

}  // namespace pe::props
