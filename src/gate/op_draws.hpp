// How the gate draws one conformance case of each op an implementation is handed (RapidCheck
// draws, inside a property): the `draw` of each op's gate descriptor (gate_ops.cpp).
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "gate/io.hpp"
#include "pe/ops.hpp"

namespace pe::gate::draws {

// One case's inputs on s, positions up to max_pos, its real values for the I/O dtype io.
using draw_signature = op_inputs(const spec& s, std::int64_t max_pos, dtype io);
// diagnose's call at positions pos, each at most reach, reals from `draw` rounded to the I/O dtype io.
using probe_signature = op_inputs(const spec& s, const std::vector<std::int64_t>& pos, std::mt19937_64& draw, dtype io, std::int64_t reach);

draw_signature encode, none /* inv_freq: no call inputs */, rotate, rotate_qk, apply_tables, scale, bucket, bias, attend;

}  // namespace pe::gate::draws

// diagnose's calls of each op it probes (the `probe` of its gate descriptor): fixed positions
// `pos`, each at most reach, and reals from `draw` rounded to the I/O dtype io.
namespace pe::gate::probes {

draws::probe_signature positions /* encode, scale */, rotate, rotate_qk, apply_tables, bucket, bias;

}  // namespace pe::gate::probes

// audit's calls of each op it sweeps (the `sweep` of its gate descriptor): `in` holds the call's
// positions; `rows` [T, H, D] is the one pseudo-random row of the audit at every token, already in
// the I/O dtype (empty for an op without x), which the op's [T, H, D] inputs take; tables the op
// computes from the positions are rounded to `tables`. The inputs are then as the implementation
// sees them, so the reference runs on them as they are.
namespace pe::gate::sweeps {

using sweep_signature = void(const spec& s, op_inputs& in, tensor<double> rows, dtype tables);
sweep_signature positions /* encode: the positions alone */, rotate /* and rotate_grad's dy */, rotate_qk, apply_tables;

}  // namespace pe::gate::sweeps
