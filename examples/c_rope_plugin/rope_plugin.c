/* A correct binary32 RoPE kernel as a pecheck gate plugin (pecheck/impl.h), written the way
 * Hugging Face computes it: inv_freq = 1 / base^(2i/r) in float, angle = float(p) * inv_freq
 * in float, cos/sin in float, y = x cos +- x sin in float; neox (rotate_half) and gptj pairs,
 * partial rotary_dim. It also serves the backward pass, rotate_grad: dx = R_p^T dy, the same turn
 * with the sine's sign flipped; rotate_qk, q and k turned as rotate turns x, in one call (k with
 * fewer heads under grouped-query attention); and apply_tables, the rotation by cos and sin tables
 * it is handed (any rope spec: the tables carry the angles). Scalings, explicit freqs and p-RoPE
 * answer PE_UNSUPPORTED for rotate, rotate_grad and rotate_qk.
 *
 *   cc -O2 -shared -fPIC -I<pecheck>/src/gate rope_plugin.c -o librope_plugin.so -lm
 *   pecheck gate --impl ./librope_plugin.so --spec 'rope(dim=128, layout=neox)' --dtype f32
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pecheck/impl.h"
#include "pecheck/impl_helpers.h"

int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }
const char *pe_impl_name(void) { return "example binary32 RoPE (HF-style)"; }


/* apply_tables: x [T, H, D] turned by the cos and sin tables [T, rotary_dim/2] it is handed (a row
 * per token, a column per pair), in binary32: y_a = x_a c - x_b s, y_b = x_b c + x_a s. */
static int32_t apply_tables(const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs, int32_t n_outputs,
                            char *message, size_t message_size) {
  const pe_tensor *x = pe_find_input(inputs, n_inputs, "x"), *cos_t = pe_find_input(inputs, n_inputs, "cos"),
                  *sin_t = pe_find_input(inputs, n_inputs, "sin");
  if (x && x->dtype != PE_F32) return PE_UNSUPPORTED;
  if (!x || !cos_t || !sin_t || n_outputs != 1 || x->rank != 3 || cos_t->rank != 2 || sin_t->rank != 2) {
    snprintf(message, message_size, "apply_tables needs x [T, H, D], cos and sin [T, pairs] in f32");
    return PE_ERROR;
  }
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10), rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  const int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  const int64_t tokens = x->shape[0], heads = x->shape[1], pairs = rotary / 2;
  const float *in = (const float *)x->data, *cs = (const float *)cos_t->data, *sn = (const float *)sin_t->data;
  float *out = (float *)outputs[0].data;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const float *xv = in + (t * heads + h) * dim;
      float *yv = out + (t * heads + h) * dim;
      for (long i = 0; i < pairs; ++i) {
        const float c = cs[t * pairs + i], s = sn[t * pairs + i];
        const long a = neox ? i : 2 * i, b = neox ? i + pairs : 2 * i + 1;
        yv[a] = xv[a] * c - xv[b] * s;
        yv[b] = xv[b] * c + xv[a] * s;
      }
      for (long d = rotary; d < dim; ++d) yv[d] = xv[d];
    }
  return PE_OK;
}

/* The input `name` [T, H, D] turned at the positions pos [T] into y (backward: by R_p^T, the sine's
 * sign flipped), in binary32; the caller has checked that rotate serves the spec. */
static int32_t turn(const char *spec, const char *op, const pe_tensor *inputs, int32_t n_inputs, const char *name, pe_tensor *y,
                    int backward, char *message, size_t message_size) {
  const pe_tensor *x = pe_find_input(inputs, n_inputs, name), *pos = pe_find_input(inputs, n_inputs, "pos");
  if (x && x->dtype != PE_F32) return PE_UNSUPPORTED; /* this kernel is binary32 only */
  if (!x || !pos || pos->dtype != PE_I64 || x->rank != 3) {
    snprintf(message, message_size, "%s needs %s [T, H, D] in f32 and pos in i64", op, name);
    return PE_ERROR;
  }
  const long dim = strtol(pe_spec_field(spec, "dim"), NULL, 10), rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  const float base = strtof(pe_spec_field(spec, "base"), NULL);
  const int neox = strncmp(pe_spec_field(spec, "layout"), "neox", 4) == 0;
  const int64_t tokens = x->shape[0], heads = x->shape[1];
  const float *in = (const float *)x->data;
  const int64_t *p = (const int64_t *)pos->data;
  float *out = (float *)y->data;
  float *inv_freq = malloc(sizeof(float) * (size_t)(rotary / 2));
  for (long i = 0; i < rotary / 2; ++i) inv_freq[i] = 1.0f / powf(base, (float)(2 * i) / (float)rotary);
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const float *xv = in + (t * heads + h) * dim;
      float *yv = out + (t * heads + h) * dim;
      for (long i = 0; i < rotary / 2; ++i) {
        const float angle = (float)p[t] * inv_freq[i];
        const float c = cosf(angle), s = backward ? -sinf(angle) : sinf(angle);
        const long a = neox ? i : 2 * i, b = neox ? i + rotary / 2 : 2 * i + 1;
        yv[a] = xv[a] * c - xv[b] * s;
        yv[b] = xv[b] * c + xv[a] * s;
      }
      for (long d = rotary; d < dim; ++d) yv[d] = xv[d];
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
