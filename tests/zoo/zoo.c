/* The zoo: correct RoPE kernels, one angle algorithm per build (-DALGORITHM=n), each written here
 * from the published description of the algorithm. The gate must pass every one of them at the
 * standard tolerance (proofs/gate_tolerance.md): a false alarm on correct code is a gate bug.
 *
 * Ops: rotate, rotate_grad (the backward pass: each algorithm's turn with the sine negated, R_p^T
 * dy), rotate_qk (q and k in one call, each turned as rotate turns x), apply_tables (the rotation
 * by the cos and sin tables it is handed, in the member's arithmetic) and inv_freq of rope(...)
 * with neox or gptj pairs, partial rotary_dim, and the
 * scalings linear, yarn (magnitude hf or ggml), llama3, longrope and dynamic. I/O in f32, bf16 or
 * fp16; the arithmetic is binary32 except where the algorithm says otherwise. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pecheck/impl.h"
#include "pecheck/impl_helpers.h"

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

enum {
  DIRECT_POW = 0,    /* w_i = 1 / pow(base, 2i/r), theta = float(p) * w_i (PyTorch reference code) */
  DIRECT_EXPLOG = 1, /* w_i = exp(-(2i/r) ln base), theta = float(p) * w_i */
  ITERATED = 2,      /* theta_0 = float(p), theta_(i+1) = theta_i * theta_scale, theta_scale = pow(base, -2/r) */
  POLAR = 3,         /* outer product p x w, cis = cos + i sin as complex64, x viewed as complex times cis */
  CACHE_F32 = 4,     /* a cos/sin cache of CACHE_ROWS positions built in binary32, looked up by position */
  CACHE_IO = 5,      /* the same cache stored in the I/O dtype, and the rotation's products and sum rounded to it */
  FMA = 6,           /* direct angles, the rotation with fused multiply-adds */
  FLUSH = 7          /* direct angles with x86's flush-to-zero and denormals-are-zero bits set, as -ffast-math builds run */
};
#ifndef ALGORITHM
#define ALGORITHM DIRECT_POW
#endif
#define CACHE_ROWS (1 << 20) /* a cache is built for a fixed number of positions; past it: unsupported */
#define MAX_PAIRS 4096

int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }
const char *pe_impl_name(void) {
  static const char *names[] = {"zoo direct pow", "zoo direct exp/log", "zoo iterated products", "zoo complex polar",
                                "zoo cos/sin cache (binary32)", "zoo cos/sin cache (I/O dtype)", "zoo fused multiply-add",
                                "zoo direct pow, subnormals flushed"};
  return names[ALGORITHM];
}

/* ---- the I/O dtypes ---- */

static float from_bf16(uint16_t h) {
  const uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static uint16_t to_bf16(float f) { /* round to nearest, ties to even */
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40u);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return (uint16_t)(bits >> 16);
}
static float load(const pe_tensor *t, int64_t e) {
  switch (t->dtype) {
    case PE_F32: return ((const float *)t->data)[e];
    case PE_BF16: return from_bf16(((const uint16_t *)t->data)[e]);
    case PE_F16: return (float)((const _Float16 *)t->data)[e];
  }
  return NAN;
}
static void store(pe_tensor *t, int64_t e, float v) {
  switch (t->dtype) {
    case PE_F32: ((float *)t->data)[e] = v; break;
    case PE_BF16: ((uint16_t *)t->data)[e] = to_bf16(v); break;
    case PE_F16: ((_Float16 *)t->data)[e] = (_Float16)v; break;
  }
}
/* v rounded to the dtype and back: one rounding of an arithmetic done in that dtype. */
static float in_dtype(int32_t dtype, float v) {
  if (dtype == PE_BF16) return from_bf16(to_bf16(v));
  if (dtype == PE_F16) return (float)(_Float16)v;
  return v;
}

/* ---- the spec ---- */

static double number(const char *spec, const char *key, double otherwise) {
  const char *p = pe_spec_field(spec, key);
  return p ? strtod(p, NULL) : otherwise;
}
static int choice_is(const char *spec, const char *key, const char *value) {
  const char *p = pe_spec_field(spec, key);
  return p && strncmp(p, value, strlen(value)) == 0;
}

enum scaling { NONE, LINEAR, YARN, LLAMA3, LONGROPE, DYNAMIC };

struct rope {
  long dim, rotary;
  int neox;
  float base;
  enum scaling kind;
  const char *sc; /* the scaling's text */
  int given;      /* explicit frequencies (freqs=[...]) in per_pair_given */
  float per_pair_given[MAX_PAIRS];
  float factor, attention;
  /* yarn: the ramp's range in pairs; llama3: band edges; longrope: this call's factors */
  float low, high;
  float per_pair[MAX_PAIRS];
};

/* Reads the spec for a call whose sequence length (max position + 1) is seq_len; 0: unsupported. */
static int read_rope(const char *spec, double seq_len, struct rope *r) {
  if (number(spec, "truncate_low", 0) != 0) return 0;
  r->dim = strtol(pe_spec_field(spec, "dim"), NULL, 10);
  r->rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  if (r->rotary / 2 > MAX_PAIRS) return 0;
  r->given = pe_spec_field(spec, "freqs") != NULL;
  if (r->given && pe_spec_list(spec, "freqs", r->per_pair_given, r->rotary / 2) != r->rotary / 2) return 0;
  r->neox = choice_is(spec, "layout", "neox");
  r->base = (float)number(spec, "base", 10000);
  r->kind = NONE;
  r->factor = 1, r->attention = 1;
  r->sc = pe_spec_field(spec, "scaling");
  if (!r->sc) return 1;
  const char *sc = r->sc;
  r->factor = (float)number(sc, "factor", 1);
  if (strncmp(sc, "linear(", 7) == 0) r->kind = LINEAR;
  else if (strncmp(sc, "dynamic(", 8) == 0) {
    /* NTK-aware rescaling of the base once the sequence outgrows the original context (binary64,
     * as Python floats compute it): base (s L / L0 - (s - 1))^(r / (r - 2)). */
    r->kind = DYNAMIC;
    const double original = number(sc, "original_max", 0), s = r->factor, given = number(sc, "seq_len", 0);
    const double length = given > 0 ? given : seq_len;
    if (length > original) r->base = (float)(number(spec, "base", 10000) * pow(s * length / original - (s - 1), (double)r->rotary / (r->rotary - 2)));
  } else if (strncmp(sc, "yarn(", 5) == 0) {
    /* YaRN: pairs below `low` keep their frequency, above `high` are divided by s, a linear ramp
     * between; the range holds the pairs that turn beta_fast .. beta_slow times over L0. */
    r->kind = YARN;
    const double original = number(sc, "original_max", 0), fast = number(sc, "beta_fast", 32), slow = number(sc, "beta_slow", 1);
    const int ggml = choice_is(sc, "magnitude", "ggml");
    const double rd = (double)r->rotary, ln_base = log(number(spec, "base", 10000));
    double low = rd * log(original / (fast * 2 * M_PI)) / (2 * ln_base), high = rd * log(original / (slow * 2 * M_PI)) / (2 * ln_base);
    if (ALGORITHM == ITERATED) { /* a ggml-style kernel forms the correction dims in binary32 */
      const float rf = (float)r->rotary, lnf = logf(r->base);
      low = rf * logf((float)original / ((float)fast * 2 * (float)M_PI)) / (2 * lnf);
      high = rf * logf((float)original / ((float)slow * 2 * (float)M_PI)) / (2 * lnf);
    }
    if (ggml || choice_is(sc, "truncate", "true")) low = floor(low), high = ceil(high);
    if (low < 0) low = 0;
    if (high > rd - 1) high = rd - 1;
    if (!ggml && low == high) high += 0.001;
    if (ggml && high - low < 0.001) high = low + 0.001;
    r->low = (float)low, r->high = (float)high;
    const double s = r->factor;
    if (ggml && ALGORITHM == ITERATED) { /* in binary32, as ggml forms it from freq_scale = 1 / s */
      r->attention = (float)number(sc, "attention_factor", 1) * (1.0f + 0.1f * logf(1.0f / (1.0f / (float)s)));
    } else if (ggml) { /* the given attn_factor times ggml's own 1 + 0.1 ln s */
      r->attention = (float)(number(sc, "attention_factor", 1) * (1 + 0.1 * log(s)));
    } else if (pe_spec_field(sc, "attention_factor")) {
      r->attention = (float)number(sc, "attention_factor", 1);
    } else {
      const double m = number(sc, "mscale", 0), all = number(sc, "mscale_all_dim", 0);
#define MSCALE(k) (s <= 1 ? 1.0 : 0.1 * (k) * log(s) + 1.0)
      r->attention = (float)(m != 0 && all != 0 ? MSCALE(m) / MSCALE(all) : MSCALE(1));
#undef MSCALE
    }
  } else if (strncmp(sc, "llama3(", 7) == 0) {
    r->kind = LLAMA3;
    r->low = (float)number(sc, "low_freq_factor", 1), r->high = (float)number(sc, "high_freq_factor", 4);
  } else if (strncmp(sc, "longrope(", 9) == 0) {
    /* per-pair factors: short up to L0, long past it; attention sqrt(1 + ln s / ln L0) */
    r->kind = LONGROPE;
    const double original = number(sc, "original_max", 0), given = number(sc, "seq_len", 0);
    const double length = given > 0 ? given : seq_len;
    if (pe_spec_list(sc, length > original ? "long_factor" : "short_factor", r->per_pair, r->rotary / 2) != r->rotary / 2) return 0;
    const double s = pe_spec_field(sc, "factor") ? number(sc, "factor", 1) : number(sc, "max_pos", 0) / original;
    r->attention = pe_spec_field(sc, "attention_factor") ? (float)number(sc, "attention_factor", 1)
                   : s <= 1                              ? 1.0f
                                                         : (float)sqrt(1 + log(s) / log(original));
  } else {
    return 0;
  }
  return 1;
}

/* The weight of the extrapolated (unscaled) frequency of pair i in YaRN's blend, binary32. */
static float yarn_keep(const struct rope *r, long i) {
  float ramp = ((float)i - r->low) / (r->high - r->low);
  ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
  return 1 - ramp;
}
/* Llama 3's frequency of an unscaled w (binary32): long wavelengths divided by s, short ones
 * kept, a smooth blend between (wavelength against L0 / low_freq_factor and L0 / high_freq_factor). */
static float llama3(const struct rope *r, float w) {
  const float original = (float)number(r->sc, "original_max", 8192), wavelength = 2 * (float)M_PI / w;
  if (wavelength > original / r->low) return w / r->factor;
  if (wavelength < original / r->high) return w;
  const float smooth = (original / wavelength - r->low) / (r->high - r->low);
  return (1 - smooth) * w / r->factor + smooth * w;
}

/* The scaled frequency of pair i from its unscaled one, binary32. */
static float scaled(const struct rope *r, long i, float w) {
  switch (r->kind) {
    case LINEAR: return w / r->factor;
    case YARN: {
      const float keep = yarn_keep(r, i);
      return w / r->factor * (1 - keep) + w * keep;
    }
    case LLAMA3: return llama3(r, w);
    case LONGROPE: return 1.0f / (r->per_pair[i] * (1.0f / w));
    default: return w; /* NONE; DYNAMIC rescaled the base */
  }
}

/* The frequencies of every pair, as this algorithm forms them. */
static void frequencies(const struct rope *r, float *w) {
  const long pairs = r->rotary / 2;
  const float theta_scale = powf(r->base, -2.0f / (float)r->rotary);
  float chain = 1.0f;
  for (long i = 0; i < pairs; ++i) {
    float plain;
    if (r->given) plain = r->per_pair_given[i];
    else if (ALGORITHM == DIRECT_EXPLOG) plain = expf(-((float)(2 * i) / (float)r->rotary) * logf(r->base));
    else if (ALGORITHM == ITERATED) plain = chain, chain *= theta_scale;
    else plain = 1.0f / powf(r->base, (float)(2 * i) / (float)r->rotary);
    w[i] = scaled(r, i, plain);
  }
}

/* The angles of every pair at position p. Direct algorithms form p * w_i; the iterated one
 * multiplies its way along the pairs from theta = p and applies the scaling to the angle (with
 * explicit frequencies there is no chain: it forms p * w_i too). */
static void angles(const struct rope *r, const float *w, int64_t p, float *theta) {
  const long pairs = r->rotary / 2;
  if (ALGORITHM != ITERATED || r->given) {
    for (long i = 0; i < pairs; ++i) theta[i] = (float)p * w[i];
    return;
  }
  const float theta_scale = powf(r->base, -2.0f / (float)r->rotary);
  float extrapolated = (float)p, unscaled = 1.0f;
  for (long i = 0; i < pairs; ++i) {
    switch (r->kind) {
      case LINEAR: theta[i] = extrapolated * (1.0f / r->factor); break;
      case YARN: {
        const float keep = yarn_keep(r, i);
        theta[i] = extrapolated * (1.0f / r->factor) * (1 - keep) + extrapolated * keep;
        break;
      }
      case LLAMA3: theta[i] = extrapolated * (llama3(r, unscaled) / unscaled); break;
      case LONGROPE: theta[i] = extrapolated / r->per_pair[i]; break;
      default: theta[i] = extrapolated;
    }
    extrapolated *= theta_scale;
    unscaled *= theta_scale;
  }
}

/* One pair (xa, xb) turned by cos c and sin s in this member's arithmetic, stored at a and b of out. */
static void turn(int32_t io, float xa, float xb, float c, float s, pe_tensor *out, int64_t a, int64_t b) {
  float ya, yb;
  if (ALGORITHM == POLAR) {
    const float complex z = CMPLXF(xa, xb) * CMPLXF(c, s);
    ya = crealf(z), yb = cimagf(z);
  } else if (ALGORITHM == FMA) {
    ya = fmaf(xa, c, -(xb * s));
    yb = fmaf(xb, c, xa * s);
  } else if (ALGORITHM == CACHE_IO) { /* every product and the sum rounded to the I/O dtype */
    ya = in_dtype(io, in_dtype(io, xa * c) - in_dtype(io, xb * s));
    yb = in_dtype(io, in_dtype(io, xb * c) + in_dtype(io, xa * s));
  } else {
    ya = xa * c - xb * s;
    yb = xb * c + xa * s;
  }
  store(out, a, ya);
  store(out, b, yb);
}

/* apply_tables: x turned by the cos and sin tables [T, pairs] it is handed, in this member's
 * arithmetic (the tables replace its angles). */
static int32_t tables(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out, int32_t n_out, char *message, size_t size) {
  const pe_tensor *x = pe_find_input(in, n_in, "x"), *ct = pe_find_input(in, n_in, "cos"), *st = pe_find_input(in, n_in, "sin");
  if (!x || !ct || !st || n_out != 1 || x->rank != 3 || ct->rank != 2 || st->rank != 2) {
    snprintf(message, size, "apply_tables needs x [T, H, D], cos and sin [T, pairs]");
    return PE_ERROR;
  }
  if (x->dtype != PE_F32 && x->dtype != PE_BF16 && x->dtype != PE_F16) return PE_UNSUPPORTED; /* binary32 arithmetic */
  static struct rope r;
  if (!read_rope(spec, 1, &r)) return PE_UNSUPPORTED;
  const int64_t tokens = x->shape[0], heads = x->shape[1], dim = x->shape[2], pairs = ct->shape[1];
  if (r.dim != dim || pairs != r.rotary / 2) return PE_ERROR;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t row = (t * heads + h) * dim;
      for (int64_t i = 0; i < pairs; ++i) {
        const long a = r.neox ? i : 2 * i, b = r.neox ? i + pairs : 2 * i + 1;
        turn(x->dtype, load(x, row + a), load(x, row + b), load(ct, t * pairs + i), load(st, t * pairs + i), out, row + a, row + b);
      }
      for (long d = r.rotary; d < dim; ++d) store(out, row + d, load(x, row + d));
    }
  return PE_OK;
}

/* The input `name` [T, H, D] of op turned at the positions pos [T] into out: y = R_p x (backward 0) or
 * dx = R_p^T dy (backward 1). */
static int32_t turn_rows(const char *op, const char *name, const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out,
                         char *message, size_t size, int backward) {
  const pe_tensor *x = pe_find_input(in, n_in, name), *pos = pe_find_input(in, n_in, "pos");
  if (!x || !pos || x->rank != 3 || pos->rank != 1 || pos->dtype != PE_I64) {
    snprintf(message, size, "%s needs %s [T, H, D] and pos [T] in i64", op, name);
    return PE_ERROR;
  }
  if (x->dtype != PE_F32 && x->dtype != PE_BF16 && x->dtype != PE_F16) return PE_UNSUPPORTED; /* binary32 arithmetic */
  const int64_t tokens = x->shape[0], heads = x->shape[1], dim = x->shape[2];
  const int64_t *p = (const int64_t *)pos->data;
  int64_t top = 0;
  for (int64_t t = 0; t < tokens; ++t) top = p[t] > top ? p[t] : top;
  if (ALGORITHM == CACHE_F32 || ALGORITHM == CACHE_IO)
    for (int64_t t = 0; t < tokens; ++t)
      if (p[t] < 0 || p[t] >= CACHE_ROWS) return PE_UNSUPPORTED; /* past the cache */
  static struct rope r;
  if (!read_rope(spec, (double)top + 1, &r)) return PE_UNSUPPORTED;
  if (r.dim != dim) return PE_ERROR;
  static float w[MAX_PAIRS], theta[MAX_PAIRS], c[MAX_PAIRS], s[MAX_PAIRS];
  frequencies(&r, w);
  const long pairs = r.rotary / 2;
  const int32_t io = x->dtype;
  for (int64_t t = 0; t < tokens; ++t) {
    angles(&r, w, p[t], theta);
    for (long i = 0; i < pairs; ++i) {
      /* HF multiplies cos and sin by the attention factor; a cache stores them so */
      c[i] = cosf(theta[i]) * r.attention, s[i] = sinf(theta[i]) * r.attention;
      if (ALGORITHM == CACHE_IO) c[i] = in_dtype(io, c[i]), s[i] = in_dtype(io, s[i]);
      if (backward) s[i] = -s[i]; /* the transpose: sin(-theta), exactly */
    }
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t row = (t * heads + h) * dim;
      for (long i = 0; i < pairs; ++i) {
        const long a = r.neox ? i : 2 * i, b = r.neox ? i + pairs : 2 * i + 1;
        turn(io, load(x, row + a), load(x, row + b), c[i], s[i], out, row + a, row + b);
      }
      for (long d = r.rotary; d < dim; ++d) store(out, row + d, load(x, row + d));
    }
  }
  return PE_OK;
}

/* rotate (backward 0: y = R_p x) or rotate_grad (backward 1: dx = R_p^T dy). */
static int32_t rotate(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out, int32_t n_out, char *message, size_t size,
                      int backward) {
  const char *op = backward ? "rotate_grad" : "rotate";
  if (n_out == 1) return turn_rows(op, backward ? "dy" : "x", spec, in, n_in, out, message, size, backward);
  snprintf(message, size, "%s has one output", op);
  return PE_ERROR;
}

/* rotate_qk: q -> q_out and k -> k_out, each turned as rotate turns x. Each head is turned by its
 * token's angles alone, so k's fewer heads (grouped-query attention) need nothing else. */
static int32_t rotate_qk(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out, int32_t n_out, char *message, size_t size) {
  if (n_out != 2 || strcmp(out[0].name, "q_out") != 0 || strcmp(out[1].name, "k_out") != 0) {
    snprintf(message, size, "rotate_qk has the outputs q_out and k_out");
    return PE_ERROR;
  }
  const int32_t status = turn_rows("rotate_qk", "q", spec, in, n_in, &out[0], message, size, 0);
  return status != PE_OK ? status : turn_rows("rotate_qk", "k", spec, in, n_in, &out[1], message, size, 0);
}

static int32_t inv_freq(const char *spec, pe_tensor *out, int32_t n_out) {
  static struct rope r;
  if (!read_rope(spec, 0, &r)) return PE_UNSUPPORTED;
  if (r.kind == DYNAMIC || (r.kind == LONGROPE && !pe_spec_field(r.sc, "seq_len"))) return PE_UNSUPPORTED; /* read the call's length */
  pe_tensor *freq = NULL, *factor = NULL;
  for (int32_t o = 0; o < n_out; ++o) {
    if (strcmp(out[o].name, "inv_freq") == 0) freq = &out[o];
    if (strcmp(out[o].name, "attention_factor") == 0) factor = &out[o];
  }
  if (!freq || !factor || freq->rank != 1 || freq->shape[0] != r.rotary / 2) return PE_ERROR;
  if (freq->dtype != PE_F32 && freq->dtype != PE_BF16 && freq->dtype != PE_F16) return PE_UNSUPPORTED;
  static float w[MAX_PAIRS];
  frequencies(&r, w);
  for (long i = 0; i < r.rotary / 2; ++i) store(freq, i, w[i]);
  store(factor, 0, r.attention);
  return PE_OK;
}

static int32_t run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs, int32_t n_outputs,
                   char *message, size_t message_size) {
  if (strncmp(spec, "rope(", 5) != 0) return PE_UNSUPPORTED;
  if (strcmp(op, "rotate") == 0) return rotate(spec, inputs, n_inputs, outputs, n_outputs, message, message_size, 0);
  if (strcmp(op, "rotate_grad") == 0) return rotate(spec, inputs, n_inputs, outputs, n_outputs, message, message_size, 1);
  if (strcmp(op, "rotate_qk") == 0) return rotate_qk(spec, inputs, n_inputs, outputs, n_outputs, message, message_size);
  if (strcmp(op, "apply_tables") == 0) return tables(spec, inputs, n_inputs, outputs, n_outputs, message, message_size);
  if (strcmp(op, "inv_freq") == 0) return inv_freq(spec, outputs, n_outputs);
  return PE_UNSUPPORTED;
}

int32_t pe_impl_run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs,
                    int32_t n_outputs, char *message, size_t message_size) {
  if (ALGORITHM != FLUSH) return run(op, spec, inputs, n_inputs, outputs, n_outputs, message, message_size);
#if defined(__SSE__)
  /* What a -ffast-math build's start-up code (crtfastmath.o) does to the whole process: MXCSR's
   * FTZ (bit 15) and DAZ (bit 6), so subnormal inputs read as 0 and subnormal results become 0. */
  const unsigned int saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040u);
  const int32_t status = run(op, spec, inputs, n_inputs, outputs, n_outputs, message, message_size);
  _mm_setcsr(saved);
  return status;
#else
  snprintf(message, message_size, "the flushing member needs x86's MXCSR");
  return PE_UNSUPPORTED;
#endif
}
