/* Deliberately wrong implementations for the gate's own test: one source, one bug per build
 * (-DMUTANT=n), each modelled on a real bug class; MUTANT=0 is the correct build, which must pass.
 * Ops: rope rotate (f32), alibi bias, t5 bucket, sinusoidal encode. */
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
  UNSUPPORTED_EVERYTHING = 20 /* answers unsupported: the gate must not call that a pass of the checks */
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

static int32_t rotate(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  if (pe_spec_field(spec, "scaling") || pe_spec_field(spec, "freqs")) return PE_UNSUPPORTED;
  const char *cut = pe_spec_field(spec, "truncate_low");
  if (cut && strtod(cut, NULL) != 0) return PE_UNSUPPORTED;
  const pe_tensor *x = pe_find_input(in, n_in, "x"), *pos = pe_find_input(in, n_in, "pos");
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10);
  long rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  float base = strtof(pe_spec_field(spec, "base"), NULL);
  int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  if (MUTANT == LAYOUT_SWAPPED) neox = !neox;
  if (MUTANT == WRONG_BASE) base = 10000.0f;
  if (MUTANT == ROTARY_WINDOW) rotary = dim;
  const long denominator = MUTANT == HEAD_DIM_DENOMINATOR ? dim : rotary;
  const int64_t tokens = x->shape[0], heads = x->shape[1];
  const float *xs = (const float *)x->data;
  const int64_t *p = (const int64_t *)pos->data;
  float *ys = (float *)out->data;
  for (int64_t t = 0; t < tokens; ++t) {
    int64_t position = p[t];
    if (MUTANT == POSITION_OFF_BY_ONE) position += 1;
    if (MUTANT == KV_OFFSET_IGNORED) position -= p[0];
    if (MUTANT == CRASH && position > 1000) *(volatile int *)0 = 1;
    if (MUTANT == HANG && position == 257)
      for (volatile int spin = 1; spin;) {}
    float fp = (float)position;
    if (MUTANT == BF16_POSITIONS) fp = round_bits(fp, 8);
    for (int64_t h = 0; h < heads; ++h) {
      const float *xv = xs + (t * heads + (MUTANT == HEAD_STRIDE ? 0 : h)) * dim;
      float *yv = ys + (t * heads + h) * dim;
      for (long i = 0; i < rotary / 2; ++i) {
        float inv_freq = 1.0f / powf(base, (float)(2 * i) / (float)denominator);
        if (MUTANT == BF16_INV_FREQ) inv_freq = round_bits(inv_freq, 8);
        float c = cosf(fp * inv_freq), s = sinf(fp * inv_freq);
        if (MUTANT == FP16_COS_SIN) c = round_bits(c, 11), s = round_bits(s, 11);
        if (MUTANT == SIGN_FLIPPED) s = -s;
        if (MUTANT == NAN_AT_ZERO && position == 0) c = NAN;
        const long a = neox ? i : 2 * i, b = neox ? i + rotary / 2 : 2 * i + 1;
        yv[a] = xv[a] * c - xv[b] * s;
        yv[b] = xv[b] * c + xv[a] * s;
        if (MUTANT == NONDETERMINISTIC) {
          struct timespec now;
          clock_gettime(CLOCK_MONOTONIC, &now);
          if (now.tv_nsec & 1) yv[a] = nextafterf(yv[a], INFINITY);
        }
      }
      for (long d = rotary; d < dim; ++d) yv[d] = xv[d];
    }
  }
  if (MUTANT == WRITE_PAST_END) ys[tokens * heads * dim] = 1.0f;
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

static int32_t t5_bucket(const char *spec, const pe_tensor *in, int32_t n_in, pe_tensor *out) {
  const long buckets = strtol(pe_spec_field(spec, "buckets"), NULL, 10), max_distance = strtol(pe_spec_field(spec, "max_distance"), NULL, 10);
  const int bidirectional = strncmp(pe_spec_field(spec, "bidirectional"), "true", 4) == 0;
  const pe_tensor *rel = pe_find_input(in, n_in, "rel");
  int64_t *b = (int64_t *)out->data;
  for (int64_t e = 0; e < rel->shape[0]; ++e) {
    const int64_t r = ((const int64_t *)rel->data)[e];
    long per = buckets, offset = 0;
    long double n;
    if (bidirectional) per = buckets / 2, offset = r > 0 ? per : 0, n = (long double)llabs(r);
    else n = r < 0 ? (long double)(-r) : 0;
    const long exact = per / 2;
    if (n < exact) { b[e] = offset + (int64_t)n; continue; }
    long m = (long)floorl((per - exact) * logl(n / exact) / logl((long double)max_distance / exact));
    if (MUTANT != T5_NO_CLAMP && m > per - exact - 1) m = per - exact - 1;
    b[e] = offset + exact + m;
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
  (void)n_outputs, (void)message, (void)message_size;
  if (MUTANT == UNSUPPORTED_EVERYTHING) return PE_UNSUPPORTED;
  if (strcmp(op, "rotate") == 0 && strncmp(spec, "rope(", 5) == 0) return rotate(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "bias") == 0 && strncmp(spec, "alibi(", 6) == 0) return alibi(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "bucket") == 0 && strncmp(spec, "t5(", 3) == 0) return t5_bucket(spec, inputs, n_inputs, outputs);
  if (strcmp(op, "encode") == 0 && strncmp(spec, "sinusoidal(", 11) == 0) return sinusoidal(spec, inputs, n_inputs, outputs);
  return PE_UNSUPPORTED;
}
