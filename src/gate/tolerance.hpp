// The gate's error model: what a correct implementation in a given I/O dtype and working precision may be off by,
// element by element (derivation: proofs/gate_tolerance.md).
#pragma once
#include <string>
#include <vector>

#include "gate/io.hpp"
#include "pe/ops.hpp"

namespace pe::gate {

// The angle a correct kernel forms for pair i may be off by u_w (C + 4 |ln w| + kappa i + ...)
// (|p w| + 1) (proofs/gate_tolerance.md). strict: C = 7, kappa = 0 (direct angles p w only);
// standard: C = 7, kappa = 3 (iterated products theta_i = theta_(i-1) theta_scale admitted too);
// loose: both four times; an explicit number sets C with the standard kappa.
struct error_model {
  dtype io = dtype::f32;       // inputs and outputs
  dtype working = dtype::f32;  // the implementation's arithmetic
  // Tables handed as inputs (apply_tables' cos and sin, op_schema's `table`): the I/O dtype
  // unless the run asks for another (--table-dtype f32 for a bf16 kernel fed binary32 tables).
  dtype tables = dtype::f32;
  double angle_coefficient = 7;  // C
  double chain_coefficient = 3;  // kappa, per product of an iterated angle
  // level: strict, standard, loose, or an explicit coefficient C >= 1 ("8"); input_error otherwise.
  static error_model of(dtype io, dtype working, const std::string& level);
};

// --working as a command takes it: f32 or f64, by default f32 (f64 for I/O dtype f64);
// input_error for anything else.
std::string working_precision(dtype io, const std::string& working);

// The bound on |output - exact| for every element of every output of `op`, for inputs `in`
// (already rounded to the I/O dtype) and the exact outputs.
std::vector<std::vector<double>> output_bounds(const error_model& m, std::string_view op, const spec& s, const op_inputs& in,
                                               const std::vector<named_tensor<double>>& exact);

// Adds a bias scheme's own kernel error (its descriptor's bias_error; nothing when it has none)
// to `out`, one entry per bias entry [H, T, S] of `bias` at query positions qpos [T] and key
// positions kpos [S].
void add_bias_kernel_errors(const spec& s, const std::vector<std::int64_t>& qpos, const std::vector<std::int64_t>& kpos,
                            const std::vector<double>& bias, double u_w, std::vector<double>& out);

// The largest position the gate draws for s: max_pos, or less where the scheme scales values
// with position (xPos) and a correct kernel's values would leave the I/O or working format:
// scales are kept within 2^(emax/2) of the narrower format (2^63 in binary32 and bf16, 2^7 in
// fp16), which leaves room for inputs up to 2^8 and the scores' products.
std::int64_t drawn_position_limit(const spec& s, const error_model& m, std::int64_t max_pos);

// Each op's bound (its gate_ops entry): adds the kernel's error past each output's own rounding,
// which `out` holds on entry, for inputs `in` (already rounded to the I/O dtype) and the exact outputs.
using bound_signature = void(const error_model& m, const spec& s, const op_inputs& in, const std::vector<named_tensor<double>>& exact,
                             std::vector<std::vector<double>>& out);
namespace bounds {
bound_signature relative, encode, inv_freq, rotate, rotate_qk, apply_tables, bias, attend;
}  // namespace bounds

// attend's bound per element of out [T, H, Dv] (attend_tolerance.cpp), for the schemes whose
// scores it models: none, the RoPE family, ALiBi, T5 and the absolute encodings but learned.
std::vector<double> attend_bounds(const error_model& m, const spec& s, const op_inputs& in, const tensor<double>& exact);

}  // namespace pe::gate
