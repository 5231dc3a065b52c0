// The fast binary64 path's kernels, compiled per flavour (FMA with AVX2, FMA with AVX-512, and Dekker's product) and chosen at run time.
#pragma once
// Plain data and function pointers only, no MPFR, no templates: the FMA kernels' file includes it
// (fast_kernels_fma.cpp says why).
#include <cstdint>

#include "pe/dd.hpp"

namespace pe {

struct sin_cos_pair {
  dd s, c;
};

// sin a and cos a for a = k/1024, k = 0 .. 805 (covering |r| <= pi/4 + 2^-20), as double-doubles,
// and the series' constants (sin_cos_dd_table builds it). Plain arrays: the kernels read it
// without instantiating any template (fast_kernels_fma.cpp says why).
struct sin_cos_table {
  static constexpr int grid = 1024, entries = 806;
  dd sin_a[entries], cos_a[entries];
  dd minus_sixth, one_24th;
};

// The factor rotate multiplies by (1, YaRN's, LongRoPE's), as a double-double: exactly 1, or
// |A| in [2^-100, 2^100] (rotation_factor_of; the MPFR path takes any other).
struct rotation_factor {
  dd value;
  bool one;
};

// One pair's outputs, and whether they are certainly the exact values rounded once; when not
// (certain == false), a and b are unspecified and the caller computes the pair in MPFR.
struct rotated_pair {
  double a, b;
  bool certain;
};

// frac(omega / 2pi) as a 192-bit fixed-point fraction, most significant word first
// (fraction_of_turn, phase.hpp). A plain array, so that the kernels read it without instantiating
// any template (fast_kernels_fma.cpp says why).
struct turn_fraction {
  std::uint64_t word[3];
};

// The exact reduction of n angles p[k] omega_k (f[k] omega_k's turn fraction, |p[k]| < 2^63):
// 2pi (frac(p[k] f[k]) - q/4) = hi[k] + lo[k] with |hi[k]| <= pi/4 (+ 2^-100), and quarter[k] =
// q mod 4 plus 4 where p[k] < 0 (sin then changes sign) (proofs/precision.phase_reduction.md).
struct turn_reduction_job {
  std::int64_t n;
  const std::int64_t* p;
  const turn_fraction* f;
  double *hi, *lo;
  std::int64_t* quarter;
};

// sin and cos of p[k] omega_k into rows of double-double heads and tails: the reduction above,
// then the table and series, then the quarter turns and the sign undone exactly. scratch has room
// for 7 n, quarter for n.
struct turn_sin_cos_job {
  std::int64_t n;
  const std::int64_t* p;
  const turn_fraction* f;
  double *s_hi, *s_lo, *c_hi, *c_lo;
  double* scratch;
  std::int64_t* quarter;
};

// One token's rotation over every head: x and y are [heads, dim] (row-major), pair k rotates
// dims a[k] and b[k] by the angle whose cosine and sine are c_hi[k] + c_lo[k] and s_hi[k] + s_lo[k].
// The kernel writes y at every pair and lists those it cannot prove in `declined` (room for
// heads * pairs) as h * pairs + k, in order: their y values are unspecified until the caller
// computes them. scratch has room for 5 * pairs.
struct token_rotation {
  const double *c_hi, *c_lo, *s_hi, *s_lo;
  const std::int64_t* a;
  const std::int64_t* b;
  std::int64_t pairs, heads, dim;
  rotation_factor factor;
  const double* x;
  double* y;
  std::int64_t* declined;
  double* scratch;
};

// RN(sin) and RN(cos) of n angles from sin_cos_turn_rows' double-doubles: sin_out[k] and cos_out[k], and
// certain[k] = 1.0 where both are provably the exact values rounded once, else 0.0 (the values are
// then unspecified and the caller computes them in MPFR).
struct rounded_sin_cos_job {
  std::int64_t n;
  const double *s_hi, *s_lo, *c_hi, *c_lo;
  double *sin_out, *cos_out, *certain;
};

// The kernels of one flavour (proofs/precision.fast_rotate.md):
// - reduce_turn_rows: the exact reduction of rows of angles (vectorised);
// - sin_cos_turn_rows: sin and cos of rows of angles p omega, within 2^-97.5 relative plus 2^-123
//   absolute (vectorised but for the table reads);
// - rotate_token: over one token's heads and pairs, y_a = A (c x_a - s x_b), y_b = A (s x_a + c x_b),
//   each correctly rounded, or the pair declined (cancellation, a zero, inputs outside
//   2^-900 .. 2^900, near-ties); returns how many it declined;
// - round_sin_cos_rows: sin and cos rounded to binary64 where certain (vectorised; encode's rows).
struct fast_kernels {
  const char* name;
  void (*reduce_turn_rows)(const turn_reduction_job& job);
  void (*sin_cos_turn_rows)(const turn_sin_cos_job& job, const sin_cos_table& table);
  std::int64_t (*rotate_token)(const token_rotation& job);
  void (*round_sin_cos_rows)(const rounded_sin_cos_job& job);
};

// Dekker's exact product (Veltkamp's split): any binary64 machine.
extern const fast_kernels dekker_kernels;
// Hardware FMA (vectorised with AVX2): built on x86-64 when the compiler takes -mfma -mavx2;
// nullptr where it is not built or this CPU lacks either.
const fast_kernels* fma_kernels();
// The FMA kernels compiled for AVX-512 (eight lanes; the same operations, so the same bits):
// nullptr where they are not built or this CPU lacks AVX-512 F, DQ and VL, FMA or AVX2.
const fast_kernels* avx512_kernels();
// AVX-512, else FMA where the CPU has it, else Dekker's: the same correctly rounded outputs either way.
const fast_kernels& default_fast_kernels();

}  // namespace pe
