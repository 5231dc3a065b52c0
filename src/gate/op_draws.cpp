// The gate's draws of each op's conformance cases, and diagnose's fixed calls (see op_draws.hpp).
// Every draw of an op with tokens begins alike (their count, then positions where it takes them).
#include "gate/op_draws.hpp"

#include <algorithm>
#include <tuple>
#include <cmath>

#include "pe/error.hpp"
#include "pe/float_format.hpp"
#include "pe/schemes/rope.hpp"
#include "properties/generators.hpp"
#include "properties/law_support.hpp"

namespace pe::gate::draws {
namespace {

// Positions of a table-backed encoding (learned: max_len rows, normalized: length) folded into it.
void keep_within_table(const spec& s, std::vector<std::int64_t>& pos) {
  const auto limit = position_limit(s);
  if (!limit) return;
  for (auto& p : pos) p %= *limit;
}

// Values at the edges of the I/O dtype in about half of rotate's x: signed zeros, subnormals (the
// smallest, the largest, others), the smallest normal, and large magnitudes 2^k (1 + f) with 2^k the
// largest power of two up to 2^(emax - 2) at which every exact output stays within 2^emax, half the
// dtype's largest: a spec's attention factor or xPos's scale grows a pair, and past that a correct
// kernel may overflow in between (a product, a factor applied before the turn), which the spec does
// not rule out. Every value drawn is exact in the dtype (proofs/gate_tolerance.md, "Underflow").
void put_edge_values(const spec& s, op_inputs& in, dtype io) {
  const float_format& f = dtype_format(io);
  const double tiny = subnormal_spacing(io), smallest_normal = lowest_normal(io);
  const std::int64_t steps = std::int64_t{1} << (f.precision - 1);  // the significand's fraction steps
  op_inputs large = in;  // the large values alone, at scale 1, to measure their growth
  std::fill(large.x.data.begin(), large.x.data.end(), 0.0);
  std::vector<std::size_t> large_at;
  for (std::size_t e = 0; e < in.x.data.size(); ++e) {
    if (!*rc::gen::arbitrary<bool>()) continue;
    const double sign = *rc::gen::element(1.0, -1.0).as("sign");
    switch (*rc::gen::inRange(0, 4)) {
      case 0: in.x.data[e] = sign * 0.0; break;
      case 1: in.x.data[e] = sign * tiny * static_cast<double>(*rc::gen::inRange<std::int64_t>(1, steps)); break;
      case 2: in.x.data[e] = sign * *rc::gen::element(tiny, smallest_normal - tiny, smallest_normal); break;
      default:
        large.x.data[e] = sign * (1 + static_cast<double>(*rc::gen::inRange<std::int64_t>(0, steps)) / static_cast<double>(steps));
        large_at.push_back(e);
    }
  }
  if (large_at.empty()) return;
  // The rotation is linear in x: the large values' outputs grow with their scale.
  double growth = 0;
  for (const auto& y : run_op<double>("rotate", s, large))
    for (const double v : y.value.data) growth = std::max(growth, std::abs(v));
  int k = f.emax - 2;
  if (growth > 0) k = std::min(k, static_cast<int>(std::floor(std::log2(std::ldexp(1.0, f.emax) / growth))));
  for (const auto e : large_at) in.x.data[e] = std::ldexp(large.x.data[e], k);
}

// apply_tables' cos and sin [T, pairs]: the exact cos and sin of the spec's angles at each token's
// position row (angle_tables). The gate rounds them to the I/O dtype with the other real inputs;
// in.pos keeps the positions they came from, for the coverage classes (a table of large angles is
// its own class).
void put_tables(const spec& s, op_inputs& in) { std::tie(in.cos, in.sin) = angle_tables(s, in); }
// put_tables, each value then rounded to d: the tables as the kernel sees them, for diagnose's and
// audit's calls, whose variants, bounds and reference are computed on those very values.
void put_rounded_tables(const spec& s, op_inputs& in, dtype d) {
  put_tables(s, in);
  for (auto* t : {&in.cos, &in.sin})
    for (auto& v : t->data) v = round_to_format(v, dtype_format(d));
}

// 1 to 8 tokens, the first draw of every op's case.
std::int64_t draw_tokens() { return *rc::gen::inRange<std::int64_t>(1, 9); }

// tokens position rows of s up to max_pos.
op_inputs positions(const spec& s, std::int64_t max_pos, std::int64_t tokens) {
  op_inputs in;
  in.pos_axes = position_axes(s);
  for (std::int64_t e = 0; e < tokens * in.pos_axes; ++e) in.pos.push_back(*props::gen_position(max_pos));
  RC_CLASSIFY(*std::max_element(in.pos.begin(), in.pos.end()) >= (std::int64_t{1} << 24), "p>=2^24");
  return in;
}

// A third of the cases put one token on a position where the scheme changes behaviour (a call
// length at original_max +- 1, a band edge, a ramp end, a temperature block's first position), the
// others at or below it, so that a switch taken one token early (>= for >) shows.
void near_a_boundary(const spec& s, std::int64_t max_pos, op_inputs& in) {
  std::vector<std::int64_t> edges;
  for (const auto p : boundary_positions(s))
    if (p <= max_pos) edges.push_back(p);
  if (!edges.empty() && *rc::gen::inRange(0, 3) == 0) {
    const auto edge = *rc::gen::elementOf(edges).as("edge");
    for (auto& p : in.pos) p = std::min(p, edge);
    in.pos[*rc::gen::inRange<std::size_t>(0, in.pos.size())] = edge;
    RC_CLASSIFY(true, "boundary position");
  }
}

// Rows [T, heads, D] of s in in.x, drawn values.
void put_rows(const spec& s, op_inputs& in, std::int64_t heads) {
  const std::int64_t tokens = static_cast<std::int64_t>(in.pos.size()) / in.pos_axes, dim = *head_dim(s);
  in.x = tensor<double>({tokens, heads, dim});
  in.x.data = *props::gen_vector(tokens * heads * dim);
}

// A quarter of the cases put values at the I/O dtype's edges into in.x (turned as in.role).
void maybe_edge_values(const spec& s, op_inputs& in, dtype io) {
  const bool edges = *rc::gen::inRange(0, 4).as("edges") == 0;
  if (edges) put_edge_values(s, in, io);
  RC_CLASSIFY(edges, "values at the dtype's edges");
}

// Mostly 1-4 heads; one case in eight 5-17, past a group of 8 heads and into the next, as
// kernels that turn several heads per thread (pecheck's own: 8) see them.
std::int64_t draw_heads() {
  return *rc::gen::weightedOneOf<std::int64_t>({{7, rc::gen::inRange<std::int64_t>(1, 5)}, {1, rc::gen::inRange<std::int64_t>(5, 18)}});
}

}  // namespace

op_inputs encode(const spec& s, std::int64_t max_pos, dtype) {
  op_inputs in = positions(s, max_pos, draw_tokens());
  keep_within_table(s, in.pos);
  return in;
}

op_inputs none(const spec& s, std::int64_t, dtype) {
  op_inputs in;
  in.pos_axes = position_axes(s);
  return in;
}

op_inputs scale(const spec& s, std::int64_t max_pos, dtype) {
  op_inputs in = positions(s, max_pos, draw_tokens());
  near_a_boundary(s, max_pos, in);
  return in;
}

op_inputs rotate(const spec& s, std::int64_t max_pos, dtype io) {
  op_inputs in = positions(s, max_pos, draw_tokens());
  near_a_boundary(s, max_pos, in);
  put_rows(s, in, draw_heads());
  if (rotates_by_role(s)) in.role = *rc::gen::inRange(0, 2).as("role");  // xPos: query 0 or key 1
  maybe_edge_values(s, in, io);
  return in;
}

// q and k drawn apart (so that an output computed from the other tensor shows), k with Hk heads
// and q with a group of 2 to 4 query heads per key head (Hq != Hk, so that k turned with q's head
// count or a group mapped off by one shows). xPos: q as queries, k as keys; the op has no role.
op_inputs rotate_qk(const spec& s, std::int64_t max_pos, dtype io) {
  op_inputs in = positions(s, max_pos, draw_tokens());
  near_a_boundary(s, max_pos, in);
  const bool by_role = rotates_by_role(s);
  const auto key_heads = *rc::gen::weightedOneOf<std::int64_t>({{7, rc::gen::inRange<std::int64_t>(1, 4)}, {1, rc::gen::inRange<std::int64_t>(4, 10)}}).as("key_heads");
  const auto group = *rc::gen::inRange<std::int64_t>(2, 5).as("group");
  put_rows(s, in, key_heads);
  if (by_role) in.role = 1;
  maybe_edge_values(s, in, io);
  in.k = std::move(in.x);
  put_rows(s, in, key_heads * group);
  if (by_role) in.role = 0;
  maybe_edge_values(s, in, io);
  in.role = -1;
  return in;
}

// rotate's case (x, its edge values, positions near the scheme's boundaries), with the tables of
// its positions' angles in place of the positions.
op_inputs apply_tables(const spec& s, std::int64_t max_pos, dtype io) {
  op_inputs in = rotate(s, max_pos, io);
  put_tables(s, in);
  return in;
}

op_inputs bias(const spec& s, std::int64_t max_pos, dtype) {
  const std::int64_t tokens = draw_tokens();
  op_inputs in;
  in.pos_axes = position_axes(s);
  for (std::int64_t t = 0; t < tokens; ++t) in.qpos.push_back(*props::gen_position(max_pos));
  const auto keys = *rc::gen::inRange<std::int64_t>(1, 9).as("keys");
  for (std::int64_t t = 0; t < keys; ++t) in.kpos.push_back(*props::gen_position(max_pos));
  return in;
}

op_inputs bucket(const spec& s, std::int64_t max_pos, dtype) {
  const std::int64_t tokens = draw_tokens();
  op_inputs in;
  in.pos_axes = position_axes(s);
  for (std::int64_t t = 0; t < tokens; ++t) in.rel.push_back(*props::gen_position(max_pos) * *rc::gen::element<std::int64_t>(1, -1));
  return in;
}

op_inputs attend(const spec& s, std::int64_t max_pos, dtype) {
  const std::int64_t tokens = draw_tokens();
  op_inputs in;
  in.pos_axes = position_axes(s);
  // Shapes, heads and values as the laws draw them; positions up to max_pos. A causal query
  // needs a key at or before it: keys then sit at the queries' positions.
  // A decoder-only spec (alibi(causal=true)) takes the causal mask only.
  const bool causal = needs_causal_mask(s) || *rc::gen::arbitrary<bool>();
  in.attend = props::draw_attend(s, tokens, causal);
  auto& a = in.attend;
  // Half the cases keep every position <= 2^12: at large positions a binary32 kernel's angle
  // errors make the scores unresolvable and only the values' hull bounds the output
  // (proofs/gate_tolerance.md, attend), so those cases say little.
  const bool near = *rc::gen::arbitrary<bool>().as("near");
  const std::int64_t top = near ? std::min<std::int64_t>(max_pos, 4096) : max_pos;
  RC_CLASSIFY(near, "positions<=2^12");
  a.qpos.clear();
  for (std::int64_t e = 0; e < tokens * in.pos_axes; ++e) a.qpos.push_back(*props::gen_position(top));
  keep_within_table(s, a.qpos);
  if (!is_absolute(s)) {
    a.kpos = a.qpos;
    if (!causal)
      for (auto& p : a.kpos) p = *props::gen_position(top);
  }
  // Queries, keys and weights scaled (by powers of two, exactly) to |values| <= 1, as trained
  // models keep them: scores of a few units, where binary32 can still resolve the softmax.
  // gen_vector's 2^8 magnitudes would give scores near 10^5, where only the values' hull
  // bounds a correct kernel's output.
  for (auto* t : {&a.q, &a.k, &a.x, &a.wq, &a.wk}) {
    double top_value = 0;
    for (const double v : t->data) top_value = std::max(top_value, std::abs(v));
    if (top_value > 1)
      for (auto& v : t->data) v = std::ldexp(v, -std::ilogb(top_value) - 1);
  }
  RC_CLASSIFY(causal, "causal");
  return in;
}

}  // namespace pe::gate::draws

namespace pe::gate::probes {

op_inputs positions(const spec& s, const std::vector<std::int64_t>& pos, std::mt19937_64&, dtype, std::int64_t reach) {
  op_inputs in;
  in.pos_axes = position_axes(s);
  for (const auto p : pos) in.pos.insert(in.pos.end(), static_cast<std::size_t>(in.pos_axes), std::min(p, reach));
  return in;
}

op_inputs rotate(const spec& s, const std::vector<std::int64_t>& pos, std::mt19937_64& draw, dtype io, std::int64_t reach) {
  op_inputs in = positions(s, pos, draw, io, reach);
  const auto uniform = [&] { return round_to_format(std::ldexp(static_cast<double>(draw() >> 11), -52) - 1, dtype_format(io)); };
  const std::int64_t heads = 3, dim = rotation_plan_of(s, std::nullopt).dim;
  in.x = tensor<double>({static_cast<std::int64_t>(pos.size()), heads, dim});
  for (auto& v : in.x.data) v = uniform();
  if (rotates_by_role(s)) in.role = 0;
  return in;
}

// Four query heads over two key heads (so that a key head mapped off by one shows), every head
// with its own values: rotate's probe twice, its six heads split four and two per token.
op_inputs rotate_qk(const spec& s, const std::vector<std::int64_t>& pos, std::mt19937_64& draw, dtype io, std::int64_t reach) {
  op_inputs in = rotate(s, pos, draw, io, reach);
  const op_inputs more = rotate(s, pos, draw, io, reach);
  const std::int64_t tokens = in.x.shape[0], heads = in.x.shape[1], dim = in.x.shape[2];
  tensor<double> q({tokens, 4, dim}), k({tokens, 2, dim});
  for (std::int64_t t = 0; t < tokens; ++t) {
    const auto row = [&](const op_inputs& from, std::int64_t h) { return from.x.data.begin() + (t * heads + h) * dim; };
    for (std::int64_t h = 0; h < 6; ++h) {
      const auto from = h < heads ? row(in, h) : row(more, h - heads);
      std::copy_n(from, dim, h < 4 ? q.data.begin() + (t * 4 + h) * dim : k.data.begin() + (t * 2 + h - 4) * dim);
    }
  }
  in.x = std::move(q), in.k = std::move(k);
  in.role = -1;
  return in;
}

op_inputs apply_tables(const spec& s, const std::vector<std::int64_t>& pos, std::mt19937_64& draw, dtype io, std::int64_t reach) {
  op_inputs in = rotate(s, pos, draw, io, reach);
  draws::put_rounded_tables(s, in, io);  // in the I/O dtype, as the probe's x is
  return in;
}

op_inputs bucket(const spec&, const std::vector<std::int64_t>& pos, std::mt19937_64&, dtype, std::int64_t) {
  op_inputs in;
  for (const auto p : pos) in.rel.push_back(p), in.rel.push_back(-p);
  return in;
}

op_inputs bias(const spec&, const std::vector<std::int64_t>& pos, std::mt19937_64&, dtype, std::int64_t reach) {
  op_inputs in;
  in.qpos = {0, 5, 100, 1000, 5000, 20000};
  in.kpos = {0, 1, 2, 50, 300, 1200, 4000, 30000};
  for (auto& p : in.qpos) p = std::min(p + pos[0], reach);
  for (auto& p : in.kpos) p = std::min(p + pos[1], reach);
  return in;
}

}  // namespace pe::gate::probes

namespace pe::gate::sweeps {

void positions(const spec&, op_inputs&, tensor<double>, dtype) {}

// The rows as x (dy, for the backward pass); xPos turns them as queries.
void rotate(const spec& s, op_inputs& in, tensor<double> rows, dtype) {
  in.x = std::move(rows);
  if (rotation_plan_of(s, std::nullopt).magnitude) in.role = 0;
}

// q the rows, k their first half of the heads (grouped-query attention: two query heads a key
// head; all of them where the head count is odd).
void rotate_qk(const spec&, op_inputs& in, tensor<double> rows, dtype) {
  const std::int64_t tokens = rows.shape.at(0), heads = rows.shape.at(1), dim = rows.shape.at(2);
  const std::int64_t key_heads = heads % 2 == 0 ? heads / 2 : heads;
  in.k = tensor<double>({tokens, key_heads, dim});
  for (std::int64_t t = 0; t < tokens; ++t)
    std::copy_n(rows.data.begin() + t * heads * dim, key_heads * dim, in.k.data.begin() + t * key_heads * dim);
  in.x = std::move(rows);
}

// The rows as x, and the exact tables of the positions' angles rounded to the table dtype, as
// the gate hands them.
void apply_tables(const spec& s, op_inputs& in, tensor<double> rows, dtype tables) {
  in.x = std::move(rows);
  draws::put_rounded_tables(s, in, tables);
}

}  // namespace pe::gate::sweeps
