/* A correct RoPE kernel as a pecheck gate plugin (pecheck/impl.h), written the way Hugging Face
 * computes it: inv_freq = 1 / base^(2i/r) in float, angle = float(p) * inv_freq in float, cos/sin
 * in float, y = x cos +- x sin in float; neox (rotate_half) and gptj pairs, partial rotary_dim.
 * I/O in f32, bf16 or f16: each element is widened to float on load, and the float result is
 * rounded to the I/O dtype (to nearest, ties to even) on store. It also serves the backward pass,
 * rotate_grad: dx = R_p^T dy, the same turn with the sine's sign flipped; rotate_qk, q and k turned
 * as rotate turns x, in one call (k with fewer heads under grouped-query attention); and
 * apply_tables, the rotation by cos and sin tables it is handed, in the I/O dtype or another one
 * (any rope spec: the tables carry the angles). Scalings, explicit freqs and p-RoPE answer PE_UNSUPPORTED for rotate,
 * rotate_grad and rotate_qk; so does f64 I/O.
 *
 *   cc -O2 -shared -fPIC -I<prefix>/include rope_plugin.c -o librope_plugin.so -lm   (an installed pecheck)
 *   cc -O2 -shared -fPIC -I<pecheck>/src/gate rope_plugin.c -o librope_plugin.so -lm    (its source tree)
 *   or CMakeLists.txt beside this file: find_package(pecheck) and pecheck::impl_abi
 *   pecheck gate --impl ./librope_plugin.so --spec 'rope(dim=128, layout=neox)' --dtype bf16
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pecheck/impl.h"
#include "pecheck/impl_helpers.h"

int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }
const char *pe_impl_name(void) { return "example RoPE, f32/bf16/f16 I/O (HF-style)"; }

/* The I/O dtypes, as 32-bit and 16-bit words. */
static inline uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* bfloat16 is the upper half of binary32: widening is exact. */
static inline float bf16_to_float(uint16_t h) { return float_of((uint32_t)h << 16); }

static inline uint16_t float_to_bf16(float f) {
  const uint32_t u = bits_of(f);
  if (isnan(f)) return (uint16_t)((u >> 16) | 0x40); /* stays a (quiet) NaN */
  /* Round the low 16 bits away to nearest even; a carry moves the exponent, up to Inf. */
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits. Widening is exact. */
static inline float f16_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h & 0x8000) << 16, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0x1f) return float_of(sign | 0x7f800000 | (mantissa << 13)); /* Inf, NaN */
  if (exponent == 0) return float_of(sign | bits_of((float)mantissa * 0x1p-24f)); /* zero, subnormal */
  return float_of(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

static inline uint16_t float_to_f16(float f) {
  const uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000, magnitude = u & 0x7fffffff;
  if (isnan(f)) return (uint16_t)(sign | 0x7e00);
  if (magnitude >= 0x477ff000) return (uint16_t)(sign | 0x7c00); /* 65520 and up round to Inf */
  if (magnitude < 0x38800000) /* below 2^-14: a subnormal (or zero) in units of 2^-24; rintf ties to even */
    return (uint16_t)(sign | (uint32_t)rintf(float_of(magnitude) * 0x1p24f));
  /* Normal: rebias the exponent, round 13 mantissa bits away to nearest even (a carry moves the exponent). */
  const uint32_t rebased = magnitude - ((127 - 15) << 23);
  return (uint16_t)(sign | ((rebased + 0xfff + ((rebased >> 13) & 1)) >> 13));
}

static int served(int32_t dtype) { return dtype == PE_F32 || dtype == PE_BF16 || dtype == PE_F16; }

/* Elements [at, at + n) of a real tensor, widened to float: the dtype is read once a row, not once an element. */
static void load_row(const pe_tensor *t, int64_t at, long n, float *out) {
  const uint16_t *h = (const uint16_t *)t->data + at;
  switch (t->dtype) {
    case PE_BF16: for (long k = 0; k < n; ++k) out[k] = bf16_to_float(h[k]); break;
    case PE_F16: for (long k = 0; k < n; ++k) out[k] = f16_to_float(h[k]); break;
    default: memcpy(out, (const float *)t->data + at, sizeof(float) * (size_t)n);
  }
}

/* Elements [at, at + n) of a real tensor set to `in`, rounded to the tensor's dtype. */
static void store_row(pe_tensor *t, int64_t at, long n, const float *in) {
  uint16_t *h = (uint16_t *)t->data + at;
  switch (t->dtype) {
    case PE_BF16: for (long k = 0; k < n; ++k) h[k] = float_to_bf16(in[k]); break;
    case PE_F16: for (long k = 0; k < n; ++k) h[k] = float_to_f16(in[k]); break;
    default: memcpy((float *)t->data + at, in, sizeof(float) * (size_t)n);
  }
}

/* Row `row` of x [.., dim] turned into the same row of y by the pairs' cos c and sin s, in float:
 * y_a = x_a c - x_b s, y_b = x_b c + x_a s, the dims past rotary copied. buf holds 2 dim floats. */
static void turn_row(const pe_tensor *x, pe_tensor *y, int64_t row, long dim, long rotary, int neox, const float *c, const float *s,
                     float *buf) {
  float *in = buf, *out = buf + dim;
  load_row(x, row, dim, in);
  for (long i = 0; i < rotary / 2; ++i) {
    const long a = neox ? i : 2 * i, b = neox ? i + rotary / 2 : 2 * i + 1;
    out[a] = in[a] * c[i] - in[b] * s[i];
    out[b] = in[b] * c[i] + in[a] * s[i];
  }
  for (long d = rotary; d < dim; ++d) out[d] = in[d];
  store_row(y, row, dim, out);
}

/* apply_tables: x [T, H, D] turned by the cos and sin tables [T, rotary_dim/2] it is handed (a row
 * per token, a column per pair), in float: y_a = x_a c - x_b s, y_b = x_b c + x_a s. */
static int32_t apply_tables(const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs, int32_t n_outputs,
                            char *message, size_t message_size) {
  const pe_tensor *x = pe_find_input(inputs, n_inputs, "x"), *cos_t = pe_find_input(inputs, n_inputs, "cos"),
                  *sin_t = pe_find_input(inputs, n_inputs, "sin");
  /* The tables may come in another dtype than x (pecheck gate --table-dtype f32 for bf16 I/O). */
  if ((x && !served(x->dtype)) || (cos_t && !served(cos_t->dtype)) || (sin_t && !served(sin_t->dtype))) return PE_UNSUPPORTED;
  if (!x || !cos_t || !sin_t || n_outputs != 1 || x->rank != 3 || cos_t->rank != 2 || sin_t->rank != 2 || outputs[0].dtype != x->dtype) {
    snprintf(message, message_size, "apply_tables needs x [T, H, D] and y in one dtype, cos and sin [T, pairs]");
    return PE_ERROR;
  }
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10), rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  const int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  const int64_t tokens = x->shape[0], heads = x->shape[1], pairs = rotary / 2;
  pe_tensor *y = &outputs[0];
  /* A token's cos and sin rows, then two rows of x's width. */
  float *c = malloc(sizeof(float) * ((size_t)(2 * pairs + 2 * dim) + 1));
  if (!c) {
    snprintf(message, message_size, "apply_tables: out of memory");
    return PE_ERROR;
  }
  float *s = c + pairs, *buf = s + pairs;
  for (int64_t t = 0; t < tokens; ++t) {
    load_row(cos_t, t * pairs, pairs, c);
    load_row(sin_t, t * pairs, pairs, s);
    for (int64_t h = 0; h < heads; ++h) turn_row(x, y, (t * heads + h) * dim, dim, rotary, neox, c, s, buf);
  }
  free(c);
  return PE_OK;
}

/* The input `name` [T, H, D] turned at the positions pos [T] into y (backward: by R_p^T, the sine's
 * sign flipped), in float; the caller has checked that rotate serves the spec. */
static int32_t turn(const char *spec, const char *op, const pe_tensor *inputs, int32_t n_inputs, const char *name, pe_tensor *y,
                    int backward, char *message, size_t message_size) {
  const pe_tensor *x = pe_find_input(inputs, n_inputs, name), *pos = pe_find_input(inputs, n_inputs, "pos");
  if (x && !served(x->dtype)) return PE_UNSUPPORTED; /* f32, bf16 and f16 only */
  if (!x || !pos || pos->dtype != PE_I64 || x->rank != 3 || y->dtype != x->dtype) {
    snprintf(message, message_size, "%s needs %s [T, H, D] and its output in one dtype, and pos in i64", op, name);
    return PE_ERROR;
  }
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10), rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  const float base = strtof(pe_spec_field(spec, "base"), NULL);
  const int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  const int64_t tokens = x->shape[0], heads = x->shape[1];
  const int64_t *p = (const int64_t *)pos->data;
  /* inv_freq, each token's cos and sin (computed once per token and shared by its heads, as
   * kernels' cos/sin caches are), then two rows of x's width. */
  float *inv_freq = malloc(sizeof(float) * ((size_t)(3 * (rotary / 2) + 2 * dim) + 1));
  if (!inv_freq) {
    snprintf(message, message_size, "%s: out of memory", op);
    return PE_ERROR;
  }
  float *cos_p = inv_freq + rotary / 2, *sin_p = cos_p + rotary / 2, *buf = sin_p + rotary / 2;
  for (long i = 0; i < rotary / 2; ++i) inv_freq[i] = 1.0f / powf(base, (float)(2 * i) / (float)rotary);
  for (int64_t t = 0; t < tokens; ++t) {
    for (long i = 0; i < rotary / 2; ++i) {
      const float angle = (float)p[t] * inv_freq[i];
      cos_p[i] = cosf(angle), sin_p[i] = backward ? -sinf(angle) : sinf(angle);
    }
    for (int64_t h = 0; h < heads; ++h) turn_row(x, y, (t * heads + h) * dim, dim, rotary, neox, cos_p, sin_p, buf);
  }
  free(inv_freq);
  return PE_OK;
}

int32_t pe_impl_run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs,
                    int32_t n_outputs, char *message, size_t message_size) {
  if (strcmp(op, "apply_tables") == 0 && strncmp(spec, "rope(", 5) == 0)
    return apply_tables(spec, inputs, n_inputs, outputs, n_outputs, message, message_size);
  const int backward = strcmp(op, "rotate_grad") == 0; /* dy in, dx = R_p^T dy out */
  const int both = strcmp(op, "rotate_qk") == 0;       /* q and k in, each turned as rotate turns x */
  if ((strcmp(op, "rotate") != 0 && !backward && !both) || strncmp(spec, "rope(", 5) != 0) return PE_UNSUPPORTED;
  if (pe_spec_field(spec, "scaling") || pe_spec_field(spec, "freqs")) return PE_UNSUPPORTED;
  const char *cut = pe_spec_field(spec, "truncate_low");
  if (cut && strtod(cut, NULL) != 0) return PE_UNSUPPORTED;
  if (!both) {
    if (n_outputs != 1) {
      snprintf(message, message_size, "%s has one output", op);
      return PE_ERROR;
    }
    return turn(spec, op, inputs, n_inputs, backward ? "dy" : "x", &outputs[0], backward, message, message_size);
  }
  /* Each head is turned by its token's angles alone, so k's fewer heads (grouped-query attention) need nothing else. */
  if (n_outputs != 2 || strcmp(outputs[0].name, "q_out") != 0 || strcmp(outputs[1].name, "k_out") != 0) {
    snprintf(message, message_size, "rotate_qk has the outputs q_out and k_out");
    return PE_ERROR;
  }
  const int32_t status = turn(spec, op, inputs, n_inputs, "q", &outputs[0], 0, message, message_size);
  return status != PE_OK ? status : turn(spec, op, inputs, n_inputs, "k", &outputs[1], 0, message, message_size);
}
