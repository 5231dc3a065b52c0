// The plugin's rotate (rope specs) and encode (sinusoidal) calls: their tables from pecheck's reference, then the kernel on the backend.
//
// PECHECK_KERNEL_ANGLES picks the angle mode of both: fast or accurate (the default).
#include <cstdlib>
#include <algorithm>
#include <cstring>

#include "kernels/backend.hpp"
#include "kernels/host_tables.hpp"
#include "kernels/serve.hpp"
#include "pe/scheme.hpp"

namespace pe::kernels {

angle_mode angle_mode_from_environment() {
  const char* v = std::getenv("PECHECK_KERNEL_ANGLES");
  if (v == nullptr || std::strcmp(v, "accurate") == 0) return angle_mode::accurate;
  if (std::strcmp(v, "fast") == 0) return angle_mode::fast;
  throw failure{fmt::format("PECHECK_KERNEL_ANGLES={}: use fast or accurate", v)};
}

// The spec's frequencies and attention factor come from pecheck's rope_plan (so every scaling
// works); what the gate checks is the kernel: its layout, partial rotary, angles, sin and cos,
// the rotation, and f32/f16/bf16 storage. rope only (rotate_tables says why).
// rotate turns x by R_p into y; rotate_grad, the backward pass, turns dy by R_p^T (the sine
// negated) into dx.
namespace {

// Rows `input` [T, H, D] turned into `y` (of the same shape) at the call's positions.
void turn_rows(const pe::spec& s, const call& c, const char* op, const char* input, pe_tensor& y, bool transpose) {
  const pe_tensor* x = find_input(c, input);
  if (x == nullptr || x->rank != 3) throw failure{fmt::format("{} needs {} [T, H, D]", op, input)};
  const auto pos = positions(c, op, "pos");
  const auto tables = rotate_tables::of(s, pos);
  rotate_args a{};
  a.io = io_of(x->dtype);
  a.mode = angle_mode_from_environment();
  a.tokens = x->shape[0], a.heads = x->shape[1], a.dim = x->shape[2];
  a.rotary_dim = tables.rotary_dim, a.neox = tables.neox;
  if (a.dim != tables.dim || static_cast<std::int64_t>(pos.size()) != a.tokens) throw failure{fmt::format("{}'s head dim or pos's length does not match the spec", input)};
  if (y.rank != 3 || !std::equal(x->shape, x->shape + 3, y.shape) || y.dtype != x->dtype)
    throw failure{fmt::format("{}: its output for {} must have {}'s shape and dtype", op, input, input)};
  a.x = x->data, a.y = y.data, a.pos = pos.data();
  a.inv_freq = tables.inv_freq.data(), a.turns = tables.turns.data(), a.factor = tables.factor;
  a.transpose = transpose;
  if (const std::string error = run_rotate(a); !error.empty()) throw failure{error};
}

void serve_turn(const pe::spec& s, const call& c, const char* op, const char* input, bool transpose) {
  if (!rotate_tables::takes(s)) throw unsupported{};
  if (c.n_outputs != 1) throw failure{fmt::format("{} needs one output", op)};
  turn_rows(s, c, op, input, c.outputs[0], transpose);
}

}  // namespace

void serve_rotate(const pe::spec& s, const call& c) { serve_turn(s, c, "rotate", "x", false); }

// apply_tables: x turned by the cos and sin tables the call hands (rope: its layout and rotary
// window from the spec; the angles are the tables').
void serve_apply_tables(const pe::spec& s, const call& c) {
  if (!rotate_tables::takes(s)) throw unsupported{};
  const pe_tensor *x = find_input(c, "x"), *cos = find_input(c, "cos"), *sin = find_input(c, "sin");
  if (x == nullptr || cos == nullptr || sin == nullptr || x->rank != 3 || cos->rank != 2 || sin->rank != 2)
    throw failure{"apply_tables needs x [T, H, D], cos and sin [T, pairs]"};
  const auto plan = pe::rotation_plan_of(s, std::nullopt);
  tables_args a{};
  a.io = io_of(x->dtype);
  if (cos->dtype != x->dtype || sin->dtype != x->dtype) throw failure{"apply_tables: cos and sin must have x's dtype"};
  a.tokens = x->shape[0], a.heads = x->shape[1], a.dim = x->shape[2];
  a.rotary_dim = plan.blocks.front().width, a.neox = plan.blocks.front().neox;
  if (a.dim != plan.dim || cos->shape[0] != a.tokens || cos->shape[1] != a.rotary_dim / 2 || sin->shape[0] != a.tokens || sin->shape[1] != a.rotary_dim / 2)
    throw failure{"apply_tables: x's head dim or the tables' shape does not match the spec"};
  a.x = x->data, a.cos = cos->data, a.sin = sin->data, a.y = only_output(c, "apply_tables", {a.tokens, a.heads, a.dim}).data;
  if (const std::string error = run_apply_tables(a); !error.empty()) throw failure{error};
}
void serve_rotate_grad(const pe::spec& s, const call& c) { serve_turn(s, c, "rotate_grad", "dy", true); }

// rotate_qk: q and k turned alike (two launches); each head is turned by its token's angles alone,
// so k's fewer heads (grouped-query attention) need nothing else.
void serve_rotate_qk(const pe::spec& s, const call& c) {
  if (!rotate_tables::takes(s)) throw unsupported{};
  if (c.n_outputs != 2 || std::strcmp(c.outputs[0].name, "q_out") != 0 || std::strcmp(c.outputs[1].name, "k_out") != 0)
    throw failure{"rotate_qk needs the outputs q_out and k_out"};
  turn_rows(s, c, "rotate_qk", "q", c.outputs[0], false);
  turn_rows(s, c, "rotate_qk", "k", c.outputs[1], false);
}

// Served for every scheme whose encode is sin and cos of p omega_i (its descriptor's phases).
void serve_encode(const pe::spec& s, const call& c) {
  if (!pe::behaviour_of(s).phases) throw unsupported{};
  const auto pos = positions(c, "encode", "pos");
  encode_args a{};
  a.tokens = static_cast<std::int64_t>(pos.size()), a.dim = s.integer("dim");
  pe_tensor& out = only_output(c, "encode", {a.tokens, a.dim});
  a.io = io_of(out.dtype);
  a.mode = angle_mode_from_environment();
  const auto tables = encode_tables::of(s);
  a.pairs = static_cast<std::int64_t>(tables.inv_freq.size());
  a.pe = out.data, a.pos = pos.data(), a.slots = tables.slots.data();
  a.inv_freq = tables.inv_freq.data(), a.turns = tables.turns.data();
  if (const std::string error = run_encode(a); !error.empty()) throw failure{error};
}

}  // namespace pe::kernels
