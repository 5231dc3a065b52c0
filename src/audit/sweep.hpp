// `pecheck audit`'s sweep: every position of a set through an implementation, each output compared with the exact
// binary64 reference (cross-checked against MPFR on a sample), the errors gathered into an audit_profile.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "audit/profile.hpp"
#include "gate/implementation.hpp"
#include "pe/spec.hpp"

namespace pe::audit {

struct audit_request {
  gate::implementation_flags implementation;
  std::string spec, dtype = "f32", working, tolerance = "standard";
  // --op: the op swept, one of the spec's that run position by position and that audit sweeps
  // (gate_op's sweep); "" for the first the scheme lists (rotate for the RoPE family).
  std::string op;
  std::string positions = "0:4096";
  std::string shard = "1/1";  // i/n: the i-th of n equal runs of the calls (each tokens_per_call positions)
  std::int64_t tokens_per_call = 1024, heads = 8;
  std::uint64_t seed = 20261202;
  // Called after each call with the positions swept so far and the shard's total; may be empty.
  std::function<void(std::int64_t, std::int64_t)> progress;
};

// The profile of the request's shard of the sweep. The op swept is q.op, by default the spec's
// first op that splits by token (rotate for the RoPE family, encode for absolute encodings); x,
// where the op takes it, is the same pseudo-random [heads, dim] row (from the seed, rounded to the
// I/O dtype) at every position, placed by the op's sweep call (gate_ops.hpp: dy for rotate_grad,
// q and half of its heads as k for rotate_qk, x beside the positions' tables for apply_tables). Throws input_error for a request it cannot run (a spec with no such op, positions
// beyond the scheme's table, a bad flag, an implementation that will not start); a call that fails
// is recorded in the profile, its positions left uncovered, and after three in a row the sweep stops.
audit_profile run_audit(const audit_request& q);
// The same sweep through `impl` (q.implementation unread): the tests' own implementations.
audit_profile run_audit(const audit_request& q, gate::implementation& impl);

// What a sweep of the spec measures at each position, as swept_op_of derives it for setup.op
// (the default op when empty) and setup.heads: the row width, each index's band (the band count
// for a dim no pair turns), whether the op takes x (a row per head; otherwise one row) and the
// rows a position gives (its outputs' together). `setup`'s op, unit, bands and has_unrotated are
// filled in as the sweep fills them. audit merge re-derives its parts' claims from it.
struct sweep_rows {
  std::int64_t width = 0;
  std::vector<std::int64_t> band_of;
  bool takes_x = false;
  std::int64_t rows_per_position = 1;
};
sweep_rows sweep_rows_of(const spec& s, audit_setup& setup);

// Whether the profile shows an implementation within the gate's bound everywhere it was asked:
// the whole set covered, no call failed, no element non-finite or beyond its bound.
bool audit_passed(const audit_profile& p);

}  // namespace pe::audit
