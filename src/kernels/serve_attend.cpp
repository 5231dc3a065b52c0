// The plugin's attend calls (rope): q, k and v as the gate hands them, each side's angle tables from pecheck's reference, then the kernel on the backend.
#include <algorithm>
#include <span>

#include "kernels/backend.hpp"
#include "kernels/host_tables.hpp"
#include "kernels/serve.hpp"

namespace pe::kernels {

namespace {

// Input `name` of rank 3 in the call's real dtype, or failure naming what it should be.
const pe_tensor& rank_three(const call& c, const char* name, const char* shape) {
  const pe_tensor* t = find_input(c, name);
  if (t == nullptr || t->rank != 3) throw failure{fmt::format("attend needs {} {}", name, shape)};
  return *t;
}

// Positions `name` [n]: required, as the reference requires them for a rotary scheme.
std::span<const std::int64_t> positions_of(const call& c, const char* name, std::int64_t n) {
  const auto given = positions(c, "attend", name);
  if (static_cast<std::int64_t>(given.size()) != n) throw failure{fmt::format("attend: {} has {} positions for {} tokens", name, given.size(), n)};
  return given;
}

bool causal_flag(const call& c) {
  const pe_tensor* t = find_input(c, "causal");
  if (t == nullptr || t->dtype != PE_I64 || t->rank != 0) throw failure{"attend needs causal [] (i64, 0 or 1)"};
  return *static_cast<const std::int64_t*>(t->data) != 0;
}

}  // namespace

// The specs rotate takes (rotate_tables::takes). Heads wider than attend_max_dim answer unsupported.
void serve_attend(const pe::spec& s, const call& c) {
  if (!rotate_tables::takes(s)) throw unsupported{};
  const pe_tensor &q = rank_three(c, "q", "[T, H, D]"), &k = rank_three(c, "k", "[S, H, D]"), &v = rank_three(c, "v", "[S, H, Dv]");
  attend_args a{};
  a.io = io_of(q.dtype);
  if (k.dtype != q.dtype || v.dtype != q.dtype) throw failure{"attend: q, k and v need one dtype"};
  a.queries = q.shape[0], a.heads = q.shape[1], a.dim = q.shape[2], a.keys = k.shape[0], a.value_dim = v.shape[2];
  if (k.shape[1] != a.heads || k.shape[2] != a.dim || v.shape[0] != a.keys || v.shape[1] != a.heads)
    throw failure{"attend: q [T, H, D], k [S, H, D] and v [S, H, Dv] do not agree"};
  const auto qpos = positions_of(c, "qpos", a.queries), kpos = positions_of(c, "kpos", a.keys);
  // Each side's tables from its own positions (a dynamic scaling reads each side's length); the layout is the spec's.
  const auto q_tables = rotate_tables::of(s, qpos), k_tables = rotate_tables::of(s, kpos);
  if (a.dim != q_tables.dim) throw failure{"attend: q's head dim does not match the spec"};
  if (a.dim > attend_max_dim || a.value_dim > attend_max_dim) throw unsupported{};
  a.rotary_dim = q_tables.rotary_dim, a.neox = q_tables.neox;
  a.causal = causal_flag(c);
  a.mode = angle_mode_from_environment();
  // No keys, or a query that sees none, has no softmax: the reference refuses the call, and so does this.
  if (a.keys == 0) throw failure{"attend: there are no keys (k has 0 rows)"};
  if (a.causal) {
    const std::int64_t first_key = *std::min_element(kpos.begin(), kpos.end());
    for (std::int64_t i = 0; i < a.queries; ++i)
      if (qpos[static_cast<std::size_t>(i)] < first_key)
        throw failure{fmt::format("attend: query {} (position {}) has no key at or before it", i, qpos[static_cast<std::size_t>(i)])};
  }
  a.q = q.data, a.k = k.data, a.v = v.data, a.qpos = qpos.data(), a.kpos = kpos.data();
  a.out = only_output(c, "attend", {a.queries, a.heads, a.value_dim}).data;
  a.q_inv_freq = q_tables.inv_freq.data(), a.q_turns = q_tables.turns.data(), a.q_factor = q_tables.factor;
  a.k_inv_freq = k_tables.inv_freq.data(), a.k_turns = k_tables.turns.data(), a.k_factor = k_tables.factor;
  if (const std::string error = run_attend(a); !error.empty()) throw failure{error};
}

}  // namespace pe::kernels
