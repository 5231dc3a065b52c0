// What the gate does with each op an implementation is handed: how it draws a case, how far each
// output may be from the exact value, what it leaves unfixed, and how diagnose and audit call it.
// The checks (conformance.cpp, golden_check.cpp, determinism.cpp, laws.cpp), tolerance.cpp,
// diagnose and audit ask these, never an op's name; the op's tensors and reference are its op_schema's.
#pragma once
#include <cstdint>
#include <random>
#include <string_view>
#include <vector>

#include "gate/io.hpp"
#include "gate/op_draws.hpp"
#include "gate/tolerance.hpp"
#include "pe/ops.hpp"

namespace pe::gate {

struct gate_op {
  std::string_view op;
  // One conformance case's inputs on s: positions up to max_pos, reals for the I/O dtype io (RapidCheck draws).
  draws::draw_signature* draw = nullptr;
  // The kernel's error past each output's own rounding (proofs/gate_tolerance.md).
  bound_signature* bounds = nullptr;
  // Where a spec's frequencies read the call's length, what the op leaves unfixed, so that it is
  // not checked on such a spec ("" where its inputs fix the length).
  std::string_view unfixed_length;
  // Checked first of a scheme's ops: the one determinism repeats (rotate, for the RoPE family).
  bool leads = false;
  // diagnose's call at positions pos (each at most reach), reals from `draw` in the I/O dtype io;
  // none: diagnose does not call this op (its outputs show no convention: inv_freq, attend).
  draws::probe_signature* probe = nullptr;
  // audit's call at a run of positions, one row at every token; none: audit does not sweep this
  // op (its outputs are not a row per position: inv_freq, scale, bucket, bias, attend).
  sweeps::sweep_signature* sweep = nullptr;
};

// One entry per op an implementation may be handed (every op_schema that is not reference-only).
const std::vector<gate_op>& gate_op_table();
// The op's entry; std::logic_error for an op without one (a test keeps the table whole).
const gate_op& gate_op_of(std::string_view op);

}  // namespace pe::gate
