// Laws of the multi-axis RoPE forms: axial RoPE separates into per-axis ropes, M-RoPE on text is plain RoPE.
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// Axis a's block of d_a dims, rotated by rope_nd at position row (p_0, p_1, ...), is exactly
// rope(dim=d_a, base, layout) of that block at p_a: no axis mixes into another's dims.
template <class T>
struct axis_separability {
  static measure run(const backend<T>& b, const spec& s) {
    const auto& axes = s.reals("axes");
    const std::int64_t dim = rope_head_dim(s), n_axes = static_cast<std::int64_t>(axes.size());
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 4).as("tokens");
    const auto x = *gen_vector(tokens * dim).as("x");
    std::vector<std::int64_t> pos;
    for (std::int64_t e = 0; e < tokens * n_axes; ++e) pos.push_back(*gen_position());
    const auto y = rotated(b, s, x, tokens, 1, pos);
    double residual = 0;
    std::int64_t offset = 0;
    for (std::int64_t a = 0; a < n_axes; ++a) {
      const auto w = static_cast<std::int64_t>(axes[a]);
      const spec one = parse_spec(fmt::format("rope(dim={}, base={}, layout={})", w, value_text(s.real("base")), s.choice("layout")));
      std::vector<double> block;
      std::vector<std::int64_t> column;
      for (std::int64_t t = 0; t < tokens; ++t) {
        block.insert(block.end(), x.begin() + t * dim + offset, x.begin() + t * dim + offset + w);
        column.push_back(pos[t * n_axes + a]);
      }
      const auto yb = rotated(b, one, block, tokens, 1, column);
      for (std::int64_t t = 0; t < tokens; ++t) residual = std::max(residual, max_abs_diff(y, t * dim + offset, yb, t * w, w));
      offset += w;
    }
    return {residual, 0, std::max(max_abs(y), 1e-300)};
  }
};

// M-RoPE with t = h = w = p (a text token) is rope(dim, base, layout=neox) at p, exactly.
template <class T>
struct text_reduces_to_rope {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t dim = s.integer("dim");
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 4).as("tokens");
    const auto x = *gen_vector(tokens * dim).as("x");
    std::vector<std::int64_t> rows, plain;
    for (std::int64_t t = 0; t < tokens; ++t) {
      const auto p = *gen_position().as("p");
      plain.push_back(p);
      rows.insert(rows.end(), {p, p, p});
    }
    const spec rope = parse_spec(fmt::format("rope(dim={}, base={}, layout=neox)", dim, value_text(s.real("base"))));
    const auto y = rotated(b, s, x, tokens, 1, rows), yr = rotated(b, rope, x, tokens, 1, plain);
    return {max_abs_diff(y, yr), 0, std::max(max_abs(y), 1e-300)};
  }
};

}  // namespace

void add_rope_axes_properties(std::vector<property>& out) {
  out.push_back(make_property<axis_separability>(
      "rope_nd.axis_separability", "each axis rotates only its own block, exactly as rope(dim=d_a) at that axis's position",
      law_kind::identity, {random_specs("rope_nd", expectation::holds)}));
  out.push_back(make_property<text_reduces_to_rope>(
      "mrope.text_reduces_to_rope", "M-RoPE with equal t, h, w positions is plain neox RoPE at that position",
      law_kind::identity, {random_specs("mrope", expectation::holds)}));
}


namespace {

const family_registration rope_axes_registration{40, add_rope_axes_properties};
const spec_generator_registration rope_nd_generator{"rope_nd", [] { return gen_rope_nd_spec(); }};
const spec_generator_registration mrope_generator{"mrope", [] { return gen_mrope_spec(); }};

}  // namespace

}  // namespace pe::props
