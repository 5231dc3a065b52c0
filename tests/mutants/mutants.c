/* Deliberately wrong implementations for the gate's own test: one source, one bug per build
 * (-DMUTANT=n), each modelled on a real bug class; MUTANT=0 is the correct build, which must pass.
 * Ops: rope rotate, rotate_grad, apply_tables and inv_freq (f32), alibi bias, t5 bucket and bias, sinusoidal encode, kerple bias,
 * llama4_temperature scale, xpos rotate, mrope rotate (contiguous sections), and rotate_qk of every scheme it rotates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pecheck/impl.h"
#include "pecheck/impl_helpers.h"

#ifndef MUTANT
#define MUTANT 0
#endif
enum {
  CORRECT = 0,
  LAYOUT_SWAPPED = 1,         /* weight converters that permute q/k for the other layout, or not */
  SIGN_FLIPPED = 2,           /* rotate_half with the wrong sign (x2, -x1 vs -x2, x1) */
  POSITION_OFF_BY_ONE = 3,    /* 1-based position ids */
  WRONG_BASE = 4,             /* rope_theta ignored: 10000 hard-coded (Mistral / Llama 3 ports) */
  BF16_POSITIONS = 5,         /* positions cast to bf16: 256 and 257 merge */
  BF16_INV_FREQ = 6,          /* inv_freq kept in bf16 */
  FP16_COS_SIN = 7,           /* cos/sin cache stored in fp16 */
  ROTARY_WINDOW = 8,          /* partial rotary ignored: every dim rotated */
  HEAD_DIM_DENOMINATOR = 9,   /* exponent 2i / head_dim instead of 2i / rotary_dim */
  KV_OFFSET_IGNORED = 10,     /* positions counted from the chunk, not the cache offset */
  HEAD_STRIDE = 11,           /* every head reads head 0's vector (wrong stride) */
  WRITE_PAST_END = 12,        /* one element written after the output */
  NAN_AT_ZERO = 13,           /* 0 * inf in a fused path at position 0 */
  NONDETERMINISTIC = 14,      /* a race: the last bit depends on timing */
  CRASH = 15,                 /* an out-of-range gather past position 1000 */
  HANG = 16,                  /* a loop that never ends at position 257 */
  ALIBI_PLAIN_GEOMETRIC = 17, /* 2^(-8h/n) for n = 12 heads (not a power of two) */
  T5_NO_CLAMP = 18,           /* T5 buckets without the last-bucket clamp */
  SINUSOIDAL_CONCAT = 19,     /* [sin | cos] halves where the spec is interleaved */
  UNSUPPORTED_EVERYTHING = 20, /* answers unsupported: the gate must not call that a pass of the checks */
  YARN_MAGNITUDE_TWICE = 21,   /* attention factor folded into cos/sin and again into the output */
  YARN_MAGNITUDE_MISSING = 22, /* attention factor dropped (frequencies right) */
  YARN_RANGE_EXTENDED = 23,    /* correction range from the extended context s L instead of L */
  LONGROPE_SHORT_ALWAYS = 24, /* short factors used past original_max */
  SIN_SIGN_ONE_OUTPUT = 25,   /* rotate_half as cat(x2, x1) without the minus: y_a = x_a c + x_b s */
  YARN_RAMP_DIM_INDEX = 26,   /* YaRN's ramp read at the dim index 2i instead of the pair index i */
  LLAMA3_BANDS_SWAPPED = 27,  /* Llama 3: high frequencies divided by the factor, low ones kept */
  THETA_SCALE_HEAD_DIM = 28,  /* iterated angles with theta_scale = base^(-2/head_dim) under partial rotary */
  POSITIONS_FROM_FIRST = 29,  /* positions taken as p0 + t instead of the given ones */
  LONGROPE_BOUNDARY_GE = 30,  /* long factors from seq_len >= original_max (one token early) */
  CACHE_TOO_SHORT = 31,       /* a cos/sin cache of 4096 rows; later positions read its last row */
  ANGLES_BF16 = 32,           /* a cache of angles p w stored in bf16 */
  DYNAMIC_ALWAYS_SCALED = 33, /* dynamic NTK's rescaled base kept at lengths within original_max */
  FACTOR_ON_PASS_THROUGH = 34, /* the attention factor also multiplied into the dims past rotary_dim */
  KERPLE_SIGNED_DISTANCE = 35, /* KERPLE on i - j without the absolute value (the causal code's tril, reused) */
  KERPLE_PARAMS_SWAPPED = 36,  /* KERPLE's log kernel with r1 and r2 crossed (bias_p / bias_a naming) */
  LLAMA4_FLOOR_OF_P = 37,      /* Llama 4's temperature block floor(p / F) instead of floor((p + 1) / F) */
  XPOS_ROLES_SWAPPED = 38,     /* xPos's scale zeta^(p/sb) given to keys and zeta^(-p/sb) to queries */
  XPOS_SCALE_CONCATENATED = 39, /* xPos's per-pair scales concatenated [z, z] over interleaved pairs (rotary-embedding-torch #34) */
  HEADS_PAST_8_UNROTATED = 40,  /* a kernel that turns heads in groups of 8 and drops the second group: heads 8.. passed through */
  POLAR_SQUARED_NORM = 41,      /* each pair turned as r (u c - v s, v c + u s) with r = sqrtf(a a + b b), not hypotf: the squares
                                 * overflow past 2^64 and vanish below 2^-75, so large or tiny inputs give inf or NaN */
  GRAD_FORWARD_TURN = 42,       /* the backward pass turns dy forward (R_p dy, not R_p^T dy): a conjugate flag never read
                                 * (flash-attention's ApplyRotaryEmbQKV_ backward) */
  GRAD_ZEROS = 43,              /* no backward at all: dx = 0 (candle's fused rope returned no gradient) */
  TABLES_SIN_BOTH_HALVES = 45,  /* apply_tables reading sin where it should read cos for the first half: y_a = x_a s - x_b s */
  TABLES_BY_HEAD = 46,          /* apply_tables indexing the tables by head instead of token (row h of cos for every token) */
  GRAD_SIN_NEOX_TABLE = 44,     /* the backward under gptj pairs reads sin from a table in neox order, cat(s, s), so dims 2i and
                                 * 2i+1 take the sines of pairs 2i and 2i+1 mod r/2 (Paddle's fused RoPE backward for
                                 * non-NeoX pairs, whose test passed because its two sin halves were equal) */
  QK_CROSS_WIRED = 47,          /* rotate_qk's q_out second of each pair computed from k's values (k head h % Hk): out_q1 = k_0 s +
                                 * k_1 c (ColossalAI's fused_rotary_emb Triton kernel, issue #6428) */
  QK_K_WITH_Q_HEADS = 48,       /* rotate_qk reading k with q's head count: k's row (t, h) at (t Hq + h) D, 0 past k's buffer
                                 * (ColossalAI's k_head_num = q.shape[1], PR #6444) */
  QK_GQA_OFF_BY_ONE = 49,       /* rotate_qk's GQA head mapping off by one: k_out[t][h] is k[t][(h + 1) % Hk] turned */
  MROPE_NEOX_HARDCODED = 50,    /* M-RoPE turning NeoX pairs (j, j + D/2) whatever the layout: GPT-J-style models (GLM-4.1V,
                                 * GLM-OCR) get the wrong pairs (vLLM's _triton_mrope_forward, issue #49290, PR #49323) */
  X_IN_F16 = 51,                /* x read at f16 although the I/O is f32: an activation stored in a half-precision cache before the
                                 * turn (an f16 K cache under f32 compute) */
  TABLES_A_ROW_LATE = 52,       /* apply_tables reading token t's tables from row t + 1 (position ids counted from 1 into a cache
                                 * whose last row is repeated) */
  TABLES_IN_F16 = 53            /* apply_tables rounding f32 tables to f16 before the turn (a cache exported at half precision) */
};

int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }
const char *pe_impl_name(void) { return "pecheck mutant"; }

/* x rounded to a format with `bits` significand bits (bf16: 8, fp16: 11), ties to even. */
static float round_bits(float x, int bits) {
  if (x == 0 || !isfinite(x)) return x;
  int e;
  frexpf(x, &e);
  const float q = ldexpf(1.0f, e - bits);
  return nearbyintf(x / q) * q;
}

/* Frequencies (binary32, HF's way) of plain rope, yarn (magnitude=hf) or longrope; the
 * attention factor in *factor. Returns 0 when the scaling is not one of these. */
static int frequencies(const char *spec, long rotary, long denominator, float base, int64_t max_pos, float *inv_freq, float *factor) {
  *factor = 1.0f;
  for (long i = 0; i < rotary / 2; ++i) inv_freq[i] = 1.0f / powf(base, (float)(2 * i) / (float)denominator);
  const char *scaling = pe_spec_field(spec, "scaling");
  if (!scaling) return 1;
  if (strncmp(scaling, "yarn(", 5) == 0) {
    if (strncmp(pe_spec_field(scaling, "magnitude"), "hf", 2) != 0) return 0;
    if (pe_spec_field(scaling, "attention_factor") || pe_spec_field(scaling, "mscale")) return 0;
    const double s = strtod(pe_spec_field(scaling, "factor"), NULL), fast = strtod(pe_spec_field(scaling, "beta_fast"), NULL),
                 slow = strtod(pe_spec_field(scaling, "beta_slow"), NULL);
    double original = strtod(pe_spec_field(scaling, "original_max"), NULL);
    if (MUTANT == YARN_RANGE_EXTENDED) original *= s;
    const int truncate = strncmp(pe_spec_field(scaling, "truncate"), "true", 4) == 0;
    const double r = (double)rotary;
    double low = r * log(original / (fast * 2 * M_PI)) / (2 * log(base)), high = r * log(original / (slow * 2 * M_PI)) / (2 * log(base));
    if (truncate) low = floor(low), high = ceil(high);
    if (low < 0) low = 0;
    if (high > r - 1) high = r - 1;
    if (low == high) high += 0.001;
    for (long i = 0; i < rotary / 2; ++i) {
      const long at = MUTANT == YARN_RAMP_DIM_INDEX ? 2 * i : i;
      float ramp = (float)((at - low) / (high - low));
      ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
      inv_freq[i] = inv_freq[i] / (float)s * ramp + inv_freq[i] * (1 - ramp);
    }
    *factor = s <= 1 ? 1.0f : (float)(0.1 * log(s) + 1.0);
    return 1;
  }
  if (strncmp(scaling, "llama3(", 7) == 0) { /* HF's smoothing, binary32 */
    const float f = strtof(pe_spec_field(scaling, "factor"), NULL), lo = strtof(pe_spec_field(scaling, "low_freq_factor"), NULL),
                hi = strtof(pe_spec_field(scaling, "high_freq_factor"), NULL), original = strtof(pe_spec_field(scaling, "original_max"), NULL);
    for (long i = 0; i < rotary / 2; ++i) {
      const float w = inv_freq[i], wavelength = 2 * (float)M_PI / w;
      int interpolate = wavelength > original / lo, keep = wavelength < original / hi;
      if (MUTANT == LLAMA3_BANDS_SWAPPED) {
        const int swap = interpolate;
        interpolate = keep, keep = swap;
      }
      const float smooth = (original / wavelength - lo) / (hi - lo);
      inv_freq[i] = interpolate ? w / f : keep ? w : (1 - smooth) * w / f + smooth * w;
    }
    return 1;
  }
  if (strncmp(scaling, "dynamic(", 8) == 0) { /* HF dynamic NTK: the base rescaled while seq_len > original_max */
    const double f = strtod(pe_spec_field(scaling, "factor"), NULL), original = strtod(pe_spec_field(scaling, "original_max"), NULL);
    const char *given = pe_spec_field(scaling, "seq_len");
    double seq_len = given ? strtod(given, NULL) : (double)max_pos + 1;
    if (MUTANT == DYNAMIC_ALWAYS_SCALED && seq_len <= original) seq_len = 2 * original; /* a state left by a long call */
    if (seq_len > original) {
      const float scaled = (float)(base * pow(f * seq_len / original - (f - 1), (double)rotary / (rotary - 2)));
      for (long i = 0; i < rotary / 2; ++i) inv_freq[i] = 1.0f / powf(scaled, (float)(2 * i) / (float)denominator);
    }
    return 1;
  }
  if (strncmp(scaling, "longrope(", 9) == 0) {
    if (pe_spec_field(scaling, "attention_factor") || pe_spec_field(scaling, "factor")) return 0;
    float short_f[4096], long_f[4096];
    if (rotary / 2 > 4096 || pe_spec_list(scaling, "short_factor", short_f, rotary / 2) != rotary / 2 ||
        pe_spec_list(scaling, "long_factor", long_f, rotary / 2) != rotary / 2)
      return 0;
    const double original = strtod(pe_spec_field(scaling, "original_max"), NULL), extended = strtod(pe_spec_field(scaling, "max_pos"), NULL);
    const char *given = pe_spec_field(scaling, "seq_len");
    const double seq_len = given ? strtod(given, NULL) : (double)max_pos + 1;
    int use_long = seq_len > original && MUTANT != LONGROPE_SHORT_ALWAYS;
    if (MUTANT == LONGROPE_BOUNDARY_GE) use_long = seq_len >= original;
    for (long i = 0; i < rotary / 2; ++i) inv_freq[i] /= use_long ? long_f[i] : short_f[i];
    const double s = extended / original;
    *factor = s <= 1 ? 1.0f : (float)sqrt(1 + log(s) / log(original));
    return 1;
  }
  return 0;
}

/* A rope spec's shape as this build reads it, with its frequency bugs: the same for rotate and
 * inv_freq. Returns 0 for what the plugin does not support (explicit freqs, p-RoPE). */
struct rope_setup {
  long dim, rotary, denominator;
  float base;
};
static int read_rope(const char *spec, struct rope_setup *r) {
  if (pe_spec_field(spec, "freqs")) return 0;
  const char *cut = pe_spec_field(spec, "truncate_low");
  if (cut && strtod(cut, NULL) != 0) return 0;
  r->dim = strtol(pe_spec_field(spec, "dim"), NULL, 10);
  r->rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  r->base = strtof(pe_spec_field(spec, "base"), NULL);
  if (MUTANT == WRONG_BASE) r->base = 10000.0f;
  if (MUTANT == ROTARY_WINDOW) r->rotary = r->dim;
  r->denominator = MUTANT == HEAD_DIM_DENOMINATOR ? r->dim : r->rotary;
  return 1;
}

/* rotate (backward 0: y = R_p x) or rotate_grad (backward 1: dx = R_p^T dy, the sine negated). */
static int32_t rotate(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out, int backward) {
  struct rope_setup r;
  if (!read_rope(spec, &r)) return PE_UNSUPPORTED;
  const pe_tensor *x = pe_find_input(in, n_in, backward ? "dy" : "x"), *pos = pe_find_input(in, n_in, "pos");
  const long dim = r.dim, rotary = r.rotary, denominator = r.denominator;
  const float base = r.base;
  int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  if (MUTANT == LAYOUT_SWAPPED) neox = !neox;
  const int64_t tokens = x->shape[0], heads = x->shape[1];
  const float *xs = (const float *)x->data;
  const int64_t *p = (const int64_t *)pos->data;
  float *ys = (float *)out->data;
  int64_t max_pos = 0;
  for (int64_t t = 0; t < tokens; ++t) max_pos = p[t] > max_pos ? p[t] : max_pos;
  float *inv_freq = malloc(sizeof(float) * (size_t)(rotary / 2 + 1)), factor = 1.0f;
  if (!frequencies(spec, rotary, denominator, base, max_pos, inv_freq, &factor)) {
    free(inv_freq);
    return PE_UNSUPPORTED;
  }
  float in_trig = factor, on_output = 1.0f; /* HF multiplies cos and sin by the factor */
  float *rounded_row = MUTANT == X_IN_F16 ? malloc(sizeof(float) * (size_t)dim) : NULL;
  if (MUTANT == YARN_MAGNITUDE_TWICE) on_output = factor;
  if (MUTANT == YARN_MAGNITUDE_MISSING) in_trig = 1.0f;
  for (int64_t t = 0; t < tokens; ++t) {
    int64_t position = p[t];
    if (MUTANT == POSITION_OFF_BY_ONE) position += 1;
    if (MUTANT == POSITIONS_FROM_FIRST) position = p[0] + t;
    if (MUTANT == CACHE_TOO_SHORT && position > 4095) position = 4095;
    if (MUTANT == KV_OFFSET_IGNORED) position -= p[0];
    if (MUTANT == CRASH && position > 1000) *(volatile int *)0 = 1;
    if (MUTANT == HANG && position == 257)
      for (volatile int spin = 1; spin;) {}
    float fp = (float)position;
    if (MUTANT == BF16_POSITIONS) fp = round_bits(fp, 8);
    for (int64_t h = 0; h < heads; ++h) {
      const float *xv = xs + (t * heads + (MUTANT == HEAD_STRIDE ? 0 : h)) * dim;
      float *yv = ys + (t * heads + h) * dim;
      if (MUTANT == X_IN_F16) {
        for (long d = 0; d < dim; ++d) rounded_row[d] = round_bits(xv[d], 11);
        xv = rounded_row;
      }
      if (MUTANT == HEADS_PAST_8_UNROTATED && h >= 8) {
        for (long d = 0; d < dim; ++d) yv[d] = xv[d];
        continue;
      }
      float chained = fp; /* THETA_SCALE_HEAD_DIM: iterated angles, theta_scale from the head dim */
      const float theta_scale = powf(base, -2.0f / (float)dim);
      for (long i = 0; i < rotary / 2; ++i) {
        float w = inv_freq[i];
        if (MUTANT == BF16_INV_FREQ) w = round_bits(w, 8);
        float angle = fp * w;
        if (MUTANT == THETA_SCALE_HEAD_DIM) angle = chained, chained *= theta_scale;
        if (MUTANT == ANGLES_BF16) angle = round_bits(angle, 8);
        float c = cosf(angle) * in_trig, s = sinf(angle) * in_trig;
        if (backward && MUTANT == GRAD_SIN_NEOX_TABLE && !neox) s = sinf(fp * inv_freq[(2 * i) % (rotary / 2)]) * in_trig;
        if (backward && MUTANT != GRAD_FORWARD_TURN) s = -s;
        if (MUTANT == FP16_COS_SIN) c = round_bits(c, 11), s = round_bits(s, 11);
        if (MUTANT == SIGN_FLIPPED) s = -s;
        if (MUTANT == NAN_AT_ZERO && position == 0) c = NAN;
        const long a = neox ? i : 2 * i, b = neox ? i + rotary / 2 : 2 * i + 1;
        yv[a] = (xv[a] * c - (MUTANT == SIN_SIGN_ONE_OUTPUT ? -1 : 1) * xv[b] * s) * on_output;
        yv[b] = (xv[b] * c + xv[a] * s) * on_output;
        if (backward && MUTANT == GRAD_SIN_NEOX_TABLE && !neox) yv[b] = (xv[b] * c - xv[a] * sinf(fp * inv_freq[(2 * i + 1) % (rotary / 2)]) * in_trig) * on_output;
        if (backward && MUTANT == GRAD_ZEROS) yv[a] = yv[b] = 0;
        if (MUTANT == POLAR_SQUARED_NORM) {
          const float r = sqrtf(xv[a] * xv[a] + xv[b] * xv[b]), u = xv[a] / r, v = xv[b] / r;
          if (r != 0 || xv[a] != 0 || xv[b] != 0) yv[a] = r * (u * c - v * s), yv[b] = r * (v * c + u * s);
        }
        if (MUTANT == NONDETERMINISTIC) {
          struct timespec now;
          clock_gettime(CLOCK_MONOTONIC, &now);
          if (now.tv_nsec & 1) yv[a] = nextafterf(yv[a], INFINITY);
        }
      }
      for (long d = rotary; d < dim; ++d) yv[d] = xv[d] * (MUTANT == FACTOR_ON_PASS_THROUGH ? factor : 1.0f);
    }
  }
  free(inv_freq);
  free(rounded_row);
  if (MUTANT == WRITE_PAST_END) ys[tokens * heads * dim] = 1.0f;
  return PE_OK;
}

/* apply_tables: x turned by the cos and sin tables [T, pairs] it is handed, with this build's table bugs. */
static int32_t tables(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  struct rope_setup r;
  if (!read_rope(spec, &r)) return PE_UNSUPPORTED;
  const pe_tensor *x = pe_find_input(in, n_in, "x"), *ct = pe_find_input(in, n_in, "cos"), *st = pe_find_input(in, n_in, "sin");
  const int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  const int64_t tokens = x->shape[0], heads = x->shape[1], pairs = ct->shape[1];
  const float *xs = (const float *)x->data, *cs = (const float *)ct->data, *ss = (const float *)st->data;
  float *ys = (float *)out->data;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const float *xv = xs + (t * heads + h) * r.dim;
      float *yv = ys + (t * heads + h) * r.dim;
      int64_t row = MUTANT == TABLES_BY_HEAD ? h % tokens : t;
      if (MUTANT == TABLES_A_ROW_LATE && row + 1 < tokens) row += 1;
      for (long i = 0; i < pairs; ++i) {
        float c = cs[row * pairs + i], s = ss[row * pairs + i];
        if (MUTANT == TABLES_IN_F16) c = round_bits(c, 11), s = round_bits(s, 11);
        const long a = neox ? i : 2 * i, b = neox ? i + pairs : 2 * i + 1;
        yv[a] = xv[a] * (MUTANT == TABLES_SIN_BOTH_HALVES ? s : c) - xv[b] * s;
        yv[b] = xv[b] * c + xv[a] * s;
      }
      for (long d = 2 * pairs; d < r.dim; ++d) yv[d] = xv[d];
    }
  return PE_OK;
}

/* inv_freq [rotary/2] and attention_factor [] of a rope spec, with this build's frequency bugs. */
static int32_t rope_inv_freq(const char *spec, pe_tensor *out, int32_t n_out) {
  struct rope_setup r;
  if (!read_rope(spec, &r)) return PE_UNSUPPORTED;
  const long rotary = r.rotary;
  pe_tensor *freq = NULL, *factor = NULL;
  for (int32_t o = 0; o < n_out; ++o) {
    if (strcmp(out[o].name, "inv_freq") == 0) freq = &out[o];
    if (strcmp(out[o].name, "attention_factor") == 0) factor = &out[o];
  }
  if (!freq || !factor || freq->rank != 1 || freq->shape[0] != rotary / 2) return PE_ERROR; /* never write past an output */
  float *w = (float *)freq->data, a;
  if (!frequencies(spec, rotary, r.denominator, r.base, 0, w, &a)) return PE_UNSUPPORTED;
  if (MUTANT == BF16_INV_FREQ)
    for (long i = 0; i < rotary / 2; ++i) w[i] = round_bits(w[i], 8);
  if (MUTANT == YARN_MAGNITUDE_TWICE) a *= a;
  if (MUTANT == YARN_MAGNITUDE_MISSING) a = 1.0f;
  *(float *)factor->data = a;
  return PE_OK;
}

static int32_t alibi(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const long heads = strtol(pe_spec_field(spec, "heads"), NULL, 10);
  const int causal = strncmp(pe_spec_field(spec, "causal"), "true", 4) == 0;
  const pe_tensor *q = pe_find_input(in, n_in, "qpos"), *k = pe_find_input(in, n_in, "kpos");
  const int64_t nq = q->shape[0], nk = k->shape[0];
  long m = 1;
  while (m * 2 <= heads) m *= 2;
  float *bias = (float *)out->data;
  for (long h = 0; h < heads; ++h) {
    double slope;
    if (MUTANT == ALIBI_PLAIN_GEOMETRIC) slope = pow(2.0, -8.0 * (h + 1) / heads);
    else slope = h < m ? pow(2.0, -8.0 * (h + 1) / m) : pow(2.0, -4.0 * (2 * (h - m) + 1) / m);
    for (int64_t i = 0; i < nq; ++i)
      for (int64_t j = 0; j < nk; ++j) {
        const int64_t d = ((const int64_t *)q->data)[i] - ((const int64_t *)k->data)[j];
        bias[(h * nq + i) * nk + j] = (float)(-slope * (double)(causal ? d : llabs(d)));
      }
  }
  return PE_OK;
}

/* KERPLE's bias [heads, nq, nk] as the paper's code computes it, in binary32: the distance as an
 * integer, then -r1 log(1 + r2 d) (not log1p) or -r1 d^r2. */
static int32_t kerple(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const long heads = strtol(pe_spec_field(spec, "heads"), NULL, 10);
  const int power = strncmp(pe_spec_field(spec, "variant"), "power", 5) == 0;
  float r1[4096], r2[4096];
  if (heads < 1 || heads > 4096 || pe_spec_list(spec, "r1", r1, heads) != heads || pe_spec_list(spec, "r2", r2, heads) != heads) return PE_ERROR;
  const pe_tensor *q = pe_find_input(in, n_in, "qpos"), *k = pe_find_input(in, n_in, "kpos");
  const int64_t nq = q->shape[0], nk = k->shape[0];
  float *bias = (float *)out->data;
  for (long h = 0; h < heads; ++h) {
    const float a = MUTANT == KERPLE_PARAMS_SWAPPED ? r2[h] : r1[h], b = MUTANT == KERPLE_PARAMS_SWAPPED ? r1[h] : r2[h];
    for (int64_t i = 0; i < nq; ++i)
      for (int64_t j = 0; j < nk; ++j) {
        const int64_t delta = ((const int64_t *)q->data)[i] - ((const int64_t *)k->data)[j];
        const float d = (float)(MUTANT == KERPLE_SIGNED_DISTANCE ? delta : llabs(delta));
        bias[(h * nq + i) * nk + j] = power ? -a * powf(d, b) : -a * logf(1.0f + b * d);
      }
  }
  return PE_OK;
}

/* Llama 4's temperature [T] in binary32 after an integer floor: logf(k + 1) * a + 1. */
static int32_t llama4_scale(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const int64_t floor_scale = strtoll(pe_spec_field(spec, "floor_scale"), NULL, 10);
  const float a = strtof(pe_spec_field(spec, "attn_scale"), NULL);
  const pe_tensor *pos = pe_find_input(in, n_in, "pos");
  if (!pos || floor_scale < 1) return PE_ERROR;
  float *tau = (float *)out->data;
  for (int64_t t = 0; t < pos->shape[0]; ++t) {
    const int64_t p = ((const int64_t *)pos->data)[t];
    const int64_t block = MUTANT == LLAMA4_FLOOR_OF_P ? p / floor_scale : (int64_t)(((uint64_t)p + 1) / (uint64_t)floor_scale);
    tau[t] = logf((float)block + 1.0f) * a + 1.0f;
  }
  return PE_OK;
}

/* xPos rotate in binary32 as torchscale computes it: zeta_i = (2i + gamma D)/((1 + gamma) D), the scale
 * powf(zeta_i, +-p / scale_base) (queries +, keys -), the angle p * base^(-2i/D), then each pair rotated and scaled. */
static int32_t xpos_rotate(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10), half = dim / 2;
  const float base = strtof(pe_spec_field(spec, "base"), NULL), gamma = strtof(pe_spec_field(spec, "gamma"), NULL);
  const float scale_base = strtof(pe_spec_field(spec, "scale_base"), NULL);
  const int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  const pe_tensor *x = pe_find_input(in, n_in, "x"), *pos = pe_find_input(in, n_in, "pos"), *role = pe_find_input(in, n_in, "role");
  if (!x || !pos || !role || dim < 2 || dim % 2) return PE_ERROR;
  float sign = *(const int64_t *)role->data == 0 ? 1.0f : -1.0f;
  if (MUTANT == XPOS_ROLES_SWAPPED) sign = -sign;
  const int64_t tokens = x->shape[0], heads = x->shape[1];
  const float *xs = (const float *)x->data;
  float *ys = (float *)out->data;
  for (int64_t t = 0; t < tokens; ++t) {
    const float fp = (float)((const int64_t *)pos->data)[t], power = sign * fp / scale_base;
    for (long i = 0; i < half; ++i) {
      const long a = neox ? i : 2 * i, b = neox ? i + half : 2 * i + 1;
      const float angle = fp * powf(base, -2.0f * (float)i / (float)dim), c = cosf(angle), s = sinf(angle);
      /* The scale of dim d is that of its pair; the mutant indexes [z, z] by the dim instead. */
      const long za = MUTANT == XPOS_SCALE_CONCATENATED ? a % half : i, zb = MUTANT == XPOS_SCALE_CONCATENATED ? b % half : i;
      const float sa = powf((2.0f * (float)za + gamma * (float)dim) / ((1.0f + gamma) * (float)dim), power);
      const float sb = powf((2.0f * (float)zb + gamma * (float)dim) / ((1.0f + gamma) * (float)dim), power);
      for (int64_t h = 0; h < heads; ++h) {
        const float *xv = xs + (t * heads + h) * dim;
        float *yv = ys + (t * heads + h) * dim;
        yv[a] = (c * xv[a] - s * xv[b]) * sa;
        yv[b] = (s * xv[a] + c * xv[b]) * sb;
      }
    }
  }
  return PE_OK;
}

/* M-RoPE rotate in binary32 as HF's Qwen2-VL computes it: pair j turns at the angle float(p) *
 * (1 / base^(2j/D)), p the t, h or w position of its section (sections = [s_t, s_h, s_w] pairs, in
 * that order); neox pairs (j, j + D/2), or gptj pairs (2j, 2j + 1) where the spec says layout=gptj.
 * Qwen3-VL's interleaved sections are unsupported. */
static int32_t mrope_rotate(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const char *interleaved = pe_spec_field(spec, "interleaved"), *layout = pe_spec_field(spec, "layout");
  if (interleaved && strncmp(interleaved, "true", 4) == 0) return PE_UNSUPPORTED;
  const pe_tensor *x = pe_find_input(in, n_in, "x"), *pos = pe_find_input(in, n_in, "pos");
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10), half = dim / 2;
  float sections[3];
  if (!x || !pos || pos->rank != 2 || pos->shape[1] != 3 || pe_spec_list(spec, "sections", sections, 3) != 3) return PE_ERROR;
  int neox = !layout || strncmp(layout, "neox", 4) == 0; /* neox unless the spec says otherwise */
  if (MUTANT == MROPE_NEOX_HARDCODED) neox = 1;         /* the layout flag never read */
  const float base = strtof(pe_spec_field(spec, "base"), NULL);
  const int64_t tokens = x->shape[0], heads = x->shape[1], *p = (const int64_t *)pos->data;
  const float *xs = (const float *)x->data;
  float *ys = (float *)out->data;
  for (int64_t t = 0; t < tokens; ++t)
    for (long j = 0; j < half; ++j) {
      const int axis = j < sections[0] ? 0 : j < sections[0] + sections[1] ? 1 : 2;
      const float angle = (float)p[t * 3 + axis] * (1.0f / powf(base, (float)(2 * j) / (float)dim)), c = cosf(angle), s = sinf(angle);
      const long a = neox ? j : 2 * j, b = neox ? j + half : 2 * j + 1;
      for (int64_t h = 0; h < heads; ++h) {
        const float *xv = xs + (t * heads + h) * dim;
        float *yv = ys + (t * heads + h) * dim;
        yv[a] = xv[a] * c - xv[b] * s;
        yv[b] = xv[b] * c + xv[a] * s;
      }
    }
  return PE_OK;
}

/* A scheme's forward turn: the rows x [T, H, D] of `in` turned at its positions into out (xPos: as the
 * role input says). */
typedef int32_t (*turn_fn)(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out);

/* rope's rotate as a turn_fn: the forward turn, with this build's rope bugs. */
static int32_t rope_rotate(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) { return rotate(spec, in, n_in, out, 0); }

/* The forward turn of the spec's scheme, or NULL where this plugin turns none. */
static turn_fn turn_of(const char *spec) {
  if (strncmp(spec, "rope(", 5) == 0) return rope_rotate;
  if (strncmp(spec, "xpos(", 5) == 0) return xpos_rotate;
  if (strncmp(spec, "mrope(", 6) == 0) return mrope_rotate;
  return NULL;
}

/* Whether dim d is the second of its rotation pair: neox pairs (i, i + r/2), gptj pairs (2i, 2i + 1),
 * r the spec's rotary_dim (else its dim), neox where the spec names no layout (mrope). */
static int second_of_pair(const char *spec, long d) {
  const char *layout = pe_spec_field(spec, "layout"), *rotary_dim = pe_spec_field(spec, "rotary_dim");
  const long rotary = strtol(rotary_dim ? rotary_dim : pe_spec_field(spec, "dim"), NULL, 10);
  const int neox = !layout || strncmp(layout, "neox", 4) == 0;
  return d < rotary && (neox ? d >= rotary / 2 : d % 2 == 1);
}

/* rotate_qk: q -> q_out and k -> k_out, each turned as the scheme's rotate turns x (xPos: q as
 * queries, role 0; k as keys, role 1), with this build's bugs in reading k. */
static int32_t rotate_qk(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out, int32_t n_out, turn_fn turn) {
  const pe_tensor *q = pe_find_input(in, n_in, "q"), *k = pe_find_input(in, n_in, "k"), *pos = pe_find_input(in, n_in, "pos");
  if (!q || !k || !pos || n_out != 2 || q->rank != 3 || k->rank != 3 || k->shape[1] < 1) return PE_ERROR;
  if (q->dtype != PE_F32 || k->dtype != PE_F32) return PE_UNSUPPORTED;
  const int64_t tokens = q->shape[0], hq = q->shape[1], hk = k->shape[1], dim = q->shape[2];
  int64_t role = 0;
  const int64_t scalar[1] = {0};
  pe_tensor call[3] = {{"x", PE_F32, 3, q->shape, q->data}, *pos, {"role", PE_I64, 0, scalar, &role}};
  int32_t status = turn(spec, call, 3, &out[0]);
  if (status != PE_OK) return status;
  /* k's rows as this build reads them, [T, Hk, D]; room for [T, Hq, D] for the cross-wired one. */
  const float *ks = (const float *)k->data;
  float *rows = calloc((size_t)(tokens * hq * dim + 1), sizeof(float));
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < hk; ++h) {
      int64_t from = t * hk + h;
      if (MUTANT == QK_K_WITH_Q_HEADS) from = t * hq + h;
      if (MUTANT == QK_GQA_OFF_BY_ONE) from = t * hk + (h + 1) % hk;
      for (int64_t d = 0; d < dim; ++d) rows[(t * hk + h) * dim + d] = from < tokens * hk ? ks[from * dim + d] : 0; /* never past k */
    }
  const int64_t keys_shape[3] = {tokens, hk, dim};
  role = 1;
  call[0] = (pe_tensor){"x", PE_F32, 3, keys_shape, rows};
  status = turn(spec, call, 3, &out[1]);
  if (status == PE_OK && MUTANT == QK_CROSS_WIRED) {
    /* k's head h % Hk under every q head, turned as q is; its second of each pair replaces q_out's. */
    float *from_k = malloc(sizeof(float) * (size_t)(tokens * hq * dim + 1)), *q_out = (float *)out[0].data;
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t h = 0; h < hq; ++h) memcpy(rows + (t * hq + h) * dim, ks + (t * hk + h % hk) * dim, sizeof(float) * (size_t)dim);
    role = 0;
    call[0] = (pe_tensor){"x", PE_F32, 3, q->shape, rows};
    pe_tensor turned = out[0];
    turned.data = from_k;
    status = turn(spec, call, 3, &turned);
    for (int64_t e = 0; status == PE_OK && e < tokens * hq * dim; ++e)
      if (second_of_pair(spec, (long)(e % dim))) q_out[e] = from_k[e];
    free(from_k);
  }
  free(rows);
  return status;
}

/* T5's bucket of key - query (the mutant T5_NO_CLAMP drops the last-bucket clamp). */
static int64_t t5_bucket_of(int64_t r, long buckets, long max_distance, int bidirectional) {
  long per = buckets, offset = 0;
  long double n;
  if (bidirectional) per = buckets / 2, offset = r > 0 ? per : 0, n = (long double)llabs(r);
  else n = r < 0 ? (long double)(-r) : 0;
  const long exact = per / 2;
  if (n < exact) return offset + (int64_t)n;
  long m = (long)floorl((per - exact) * logl(n / exact) / logl((long double)max_distance / exact));
  if (MUTANT != T5_NO_CLAMP && m > per - exact - 1) m = per - exact - 1;
  return offset + exact + m;
}

static int32_t t5_bucket(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const long buckets = strtol(pe_spec_field(spec, "buckets"), NULL, 10), max_distance = strtol(pe_spec_field(spec, "max_distance"), NULL, 10);
  const int bidirectional = strncmp(pe_spec_field(spec, "bidirectional"), "true", 4) == 0;
  const pe_tensor *rel = pe_find_input(in, n_in, "rel");
  int64_t *b = (int64_t *)out->data;
  for (int64_t e = 0; e < rel->shape[0]; ++e) b[e] = t5_bucket_of(((const int64_t *)rel->data)[e], buckets, max_distance, bidirectional);
  return PE_OK;
}

/* T5's bias [heads, nq, nk]: the table entry [bucket(k - q), h] of the table the gate passes in. */
static int32_t t5_bias(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const long buckets = strtol(pe_spec_field(spec, "buckets"), NULL, 10), max_distance = strtol(pe_spec_field(spec, "max_distance"), NULL, 10);
  const long heads = strtol(pe_spec_field(spec, "heads"), NULL, 10);
  const int bidirectional = strncmp(pe_spec_field(spec, "bidirectional"), "true", 4) == 0;
  const pe_tensor *q = pe_find_input(in, n_in, "qpos"), *k = pe_find_input(in, n_in, "kpos"), *table = pe_find_input(in, n_in, "table");
  if (!q || !k || !table || table->rank != 2 || table->shape[0] != buckets || table->shape[1] != heads) return PE_ERROR;
  const int64_t nq = q->shape[0], nk = k->shape[0];
  const float *entries = (const float *)table->data;
  float *bias = (float *)out->data;
  for (int64_t i = 0; i < nq; ++i)
    for (int64_t j = 0; j < nk; ++j) {
      const int64_t b = t5_bucket_of(((const int64_t *)k->data)[j] - ((const int64_t *)q->data)[i], buckets, max_distance, bidirectional);
      for (long h = 0; h < heads; ++h) bias[(h * nq + i) * nk + j] = entries[b * heads + h];
    }
  return PE_OK;
}

static int32_t sinusoidal(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10);
  const double base = strtod(pe_spec_field(spec, "base"), NULL);
  int interleaved = strncmp(pe_spec_field(spec, "layout"), "interleaved", 11) == 0;
  if (strncmp(pe_spec_field(spec, "layout"), "fairseq", 7) == 0) return PE_UNSUPPORTED;
  if (MUTANT == SINUSOIDAL_CONCAT) interleaved = 0;
  const pe_tensor *pos = pe_find_input(in, n_in, "pos");
  float *pe = (float *)out->data;
  for (int64_t t = 0; t < pos->shape[0]; ++t)
    for (long i = 0; i < dim / 2; ++i) {
      const double angle = (double)((const int64_t *)pos->data)[t] * pow(base, -2.0 * i / dim);
      pe[t * dim + (interleaved ? 2 * i : i)] = (float)sin(angle);
      pe[t * dim + (interleaved ? 2 * i + 1 : i + dim / 2)] = (float)cos(angle);
    }
  return PE_OK;
}

int32_t pe_impl_run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs,
                    int32_t n_outputs, char *message, size_t message_size) {
  (void)message, (void)message_size;
  if (MUTANT == UNSUPPORTED_EVERYTHING) return PE_UNSUPPORTED;
  const turn_fn turn = turn_of(spec);
  if (strcmp(op, "rotate") == 0 && turn) return turn(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "rotate_qk") == 0 && turn) return rotate_qk(spec, inputs, n_inputs, outputs, n_outputs, turn);
  if (strcmp(op, "rotate_grad") == 0 && strncmp(spec, "rope(", 5) == 0) return rotate(spec, inputs, n_inputs, outputs, 1);
  if (strcmp(op, "apply_tables") == 0 && strncmp(spec, "rope(", 5) == 0) return tables(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "bias") == 0 && strncmp(spec, "alibi(", 6) == 0) return alibi(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "inv_freq") == 0 && strncmp(spec, "rope(", 5) == 0) return rope_inv_freq(spec, outputs, n_outputs);
  if (strcmp(op, "bucket") == 0 && strncmp(spec, "t5(", 3) == 0) return t5_bucket(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "bias") == 0 && strncmp(spec, "t5(", 3) == 0) return t5_bias(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "encode") == 0 && strncmp(spec, "sinusoidal(", 11) == 0) return sinusoidal(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "bias") == 0 && strncmp(spec, "kerple(", 7) == 0) return kerple(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "scale") == 0 && strncmp(spec, "llama4_temperature(", 19) == 0) return llama4_scale(spec, inputs, n_inputs, outputs);
  return PE_UNSUPPORTED;
}
