// Laws of attention itself: permutation equivariance, how position breaks it, and seed 004's causal-prefix trap.
#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// attend's out [T, H, Dv] for the inputs.
template <class T>
tensor<T> attend_out(const backend<T>& b, const spec& s, const attend_inputs& in) {
  return b.output("attend", s, attend_op_inputs(in), "out");
}

// attend computes at 128 bits (p + 64 for MPFR) and rounds once, so each output is within
// u |value| (plus a far smaller working error) of the exact attention: two outputs whose exact
// values agree differ by at most 2u max|out| (proof: attention.permutation_equivariance.md).
template <class T>
double rounding_floor(const tensor<T>& a, const tensor<T>& b) {
  return 2 * unit_roundoff<T>() * (1 + unit_roundoff<T>()) * std::max(max_abs(a), max_abs(b));
}

// attend(P X) = P attend(X): reorder the tokens (positions stay with the slots), and row t of
// the output must be row order[t] of the original output.
template <class T>
struct permutation_equivariance {
  static measure run(const backend<T>& b, const spec& s) {
    const auto tokens = *rc::gen::inRange<std::int64_t>(2, 7).as("tokens");
    const auto in = draw_attend(s, tokens, false);
    const auto order = *gen_permutation(tokens).as("order");
    const auto out = attend_out(b, s, in), moved = attend_out(b, s, reorder_tokens(in, order));
    const std::int64_t row = static_cast<std::int64_t>(out.data.size()) / tokens;
    double residual = 0;
    for (std::int64_t t = 0; t < tokens; ++t) residual = std::max(residual, max_abs_diff(moved, t * row, out, order[t] * row, row));
    return {residual, rounding_floor(out, moved), std::max(max_abs(out), 1e-300)};
  }
};

// Equal tokens get equal outputs: copy token i onto token j and compare their output rows.
// Without a position signal this holds exactly (non-causal attention sees a set); a scheme
// that places tokens must break it, and the search must find where. Mirror images
// (i + j = T - 1) are left out: a bias symmetric in i - j (ALiBi's non-causal form) cannot tell
// them apart when the rest of the sequence is a palindrome (always for T = 3), so they would
// only cost search power.
template <class T>
struct position_breaks_symmetry {
  static measure run(const backend<T>& b, const spec& s) {
    const auto tokens = *rc::gen::inRange<std::int64_t>(3, 7).as("tokens");
    auto in = draw_attend(s, tokens, false);
    const auto i = *rc::gen::inRange<std::int64_t>(0, tokens).as("i");
    const auto j = (i + *rc::gen::inRange<std::int64_t>(1, tokens).as("offset")) % tokens;
    RC_PRE(i + j != tokens - 1);
    copy_token(in, i, j);
    const auto out = attend_out(b, s, in);
    const std::int64_t row = static_cast<std::int64_t>(out.data.size()) / tokens;
    return {max_abs_diff(out, i * row, out, j * row, row), rounding_floor(out, out), std::max(max_abs(out), 1e-300)};
  }
};

// Seed 004's trap: with a causal mask and no position signal, the last query's output ignores
// the order of the tokens before it. Reorder tokens 0 .. T-2 and compare the last row.
template <class T>
struct causal_prefix_invariance {
  static measure run(const backend<T>& b, const spec& s) {
    const auto tokens = *rc::gen::inRange<std::int64_t>(3, 7).as("tokens");
    const auto in = draw_attend(s, tokens, true);
    auto order = *gen_permutation(tokens - 1).as("order");
    order.push_back(tokens - 1);
    const auto out = attend_out(b, s, in), moved = attend_out(b, s, reorder_tokens(in, order));
    const std::int64_t row = static_cast<std::int64_t>(out.data.size()) / tokens;
    const double residual = max_abs_diff(moved, (tokens - 1) * row, out, (tokens - 1) * row, row);
    return {residual, rounding_floor(out, moved), std::max(max_abs(out), 1e-300)};
  }
};

std::vector<target> none_holds_others_fail(bool causal) {
  std::vector<target> t = {random_specs("none", expectation::holds)};
  for (const auto& name : positional_schemes()) t.push_back(random_specs(name, name, expectation::fails, gen_spec_of(name, causal)));
  return t;
}

// The causal trap holds wherever the scores ignore the keys' positions (Llama 4's temperature
// scales the query alone: reordering the past reorders the keys with their values).
std::vector<target> causal_past_order(const std::vector<target>& all) {
  std::vector<target> t = all;
  for (auto& target : t)
    if (const auto* info = find_scheme(target.scheme); info && info->behaviour && !info->behaviour->sees_key_positions)
      target.expected = expectation::holds;
  return t;
}

}  // namespace

void add_attention_properties(std::vector<property>& out) {
  out.push_back(make_property<permutation_equivariance>(
      "attention.permutation_equivariance",
      "reordering the tokens reorders the outputs the same way: attend(P X) = P attend(X); every position signal breaks it",
      law_kind::identity, none_holds_others_fail(false)));
  out.push_back(make_property<position_breaks_symmetry>(
      "attention.position_breaks_symmetry",
      "equal tokens get equal outputs wherever they stand (mirror images aside); every position signal breaks this",
      law_kind::identity, none_holds_others_fail(false)));
  out.push_back(make_property<causal_prefix_invariance>(
      "attention.causal_prefix_invariance",
      "with a causal mask and no position signal, a query's output ignores the order of its past (seed 004's trap)",
      law_kind::identity, causal_past_order(none_holds_others_fail(true))));
}


namespace {

const family_registration attention_registration{0, add_attention_properties};
const spec_generator_registration none_generator{"none", [] { return gen_none_spec(); }};

}  // namespace

}  // namespace pe::props
