// Laws of rotate_qk: q and k in one call are each what rotate gives them, with k's fewer heads (grouped-query attention).
#include <algorithm>

#include "pe/scheme.hpp"
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// rotate_qk(q, k, p) = (rotate(q, p), rotate(k, p)), element by element, xPos's q as queries and
// k as keys (proofs/rope.qk_matches_rotate.md). q and k are drawn apart, k with 1 or 2 heads and q
// with a group of 2 or 3 per key head, so that an output computed from the other tensor, k turned
// with q's head count or a group mapped off by one shows. rotate_qk is called first, so that an
// implementation without it is UNSUPPORTED here, never INCOMPLETE.
template <class T>
struct qk_matches_rotate {
  static measure run(const backend<T>& b, const spec& s) {
    const auto tokens = *rc::gen::inRange<std::int64_t>(1, 4).as("tokens"), key_heads = *rc::gen::inRange<std::int64_t>(1, 3).as("key_heads");
    const auto query_heads = key_heads * *rc::gen::inRange<std::int64_t>(2, 4).as("group");
    const std::int64_t dim = *head_dim(s), axes = position_axes(s);
    const std::int64_t top = rotation_position_limit(b.max_position(), s);
    const auto q = b.stored(*gen_vector(tokens * query_heads * dim).as("q"));
    const auto k = b.stored(*gen_vector(tokens * key_heads * dim).as("k"));
    std::vector<std::int64_t> pos;
    for (std::int64_t e = 0; e < tokens * axes; ++e) pos.push_back(*gen_position(top));
    op_inputs both = rotate_inputs(q, tokens, query_heads, dim, pos, axes);
    both.k = rotate_inputs(k, tokens, key_heads, dim, pos, axes).x;
    const auto outs = b.outputs_with_error("rotate_qk", s, both, {"q_out", "k_out"});
    const auto &q_out = outs[0], &k_out = outs[1];
    worst_part worst(0);
    // xPos scales q as queries (role 0) and k as keys (role 1); other rotations take no role (-1).
    const bool by_role = rotation_plan_of(s, std::nullopt).magnitude.has_value();
    const std::int64_t query_role = by_role ? 0 : -1, key_role = by_role ? 1 : -1;
    for (const auto& [got, values, heads, as] : {std::tuple{&q_out, &q, query_heads, query_role}, std::tuple{&k_out, &k, key_heads, key_role}}) {
      op_inputs one = rotate_inputs(*values, tokens, heads, dim, pos, axes);
      one.role = as;
      const auto y = b.output_with_error("rotate", s, one, "y");
      // Both are the exact rotation within their own allowances.
      for (std::size_t e = 0; e < y.value.data.size(); ++e) worst.add(abs_difference(got->value.data[e], y.value.data[e]), got->error[e] + y.error[e]);
    }
    return worst.result(1);
  }
};

}  // namespace

void add_rope_qk_properties(std::vector<property>& out) {
  out.push_back(on_implementations(make_property<qk_matches_rotate>(
      "rope.qk_matches_rotate", "rotate_qk(q, k, p) = (rotate(q, p), rotate(k, p)): q and k in one call, k with fewer heads, are each turned as rotate turns them",
      law_kind::inequality,
      {random_specs("rope", expectation::holds), random_specs("rope_nd", expectation::holds), random_specs("mrope", expectation::holds),
       random_specs("xpos", expectation::holds)})));
}

namespace {

const family_registration rope_qk_registration{34, add_rope_qk_properties};

}  // namespace

}  // namespace pe::props
