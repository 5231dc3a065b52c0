/* llama.cpp's ggml as a pecheck gate plugin: rotate, rotate_grad and rotate_qk through
 * ggml_rope_ext, ggml_rope_ext_back (ggml_rope_back before 0.23.0) and ggml_rope_multi(_back),
 * computed by ggml's CPU backend, the way llama.cpp's model code calls them.
 *
 * A rope spec maps onto ggml's arguments as llama.cpp's loader and converter map a model's config:
 *   layout neox -> GGML_ROPE_TYPE_NEOX, gptj -> NORMAL; rotary_dim -> n_dims;
 *   linear(factor) -> freq_scale = 1/factor; ntk(factor) -> freq_base = base factor^(r/(r-2));
 *   yarn -> freq_scale = 1/factor, ext_factor = 1, beta_fast/slow, n_ctx_orig = original_max and
 *     attn_factor = the spec's magnitude / (1 + 0.1 ln factor), since ggml multiplies by that itself
 *     (llama.cpp's DeepSeek-V2/V3 code divides it out the same way);
 *   llama3 -> freq_factors computed as convert_hf_to_gguf.py writes rope_freqs.weight;
 *   longrope -> freq_factors = the short or long factors, attn_factor = the spec's attention factor;
 *   mrope -> ggml_rope_multi, MROPE (Qwen2-VL) or IMROPE (interleaved, Qwen3-VL), with sections.
 * Answered PE_UNSUPPORTED, since ggml cannot compute them: bf16 and f64 I/O, positions outside
 * int32, dynamic NTK, explicit freqs, p-RoPE (truncate_low), YaRN without truncation, gptj M-RoPE,
 * and every op but these three.
 *
 * Built and run by scripts/engines, against a release it names at build time:
 *   cc -O2 -shared -fPIC -I<pecheck>/src/gate ggml_rope_plugin.c -o libggml_rope.so \
 *      -DPINNED_GGML_VERSION='"0.23.0"' -DPINNED_GGML_COMMIT='"5b4ebc5"' -DRELEASE='"node-llama-cpp 3.21.1"' \
 *      -L<bins> -l:libggml-base.so -l:libggml.v0.4.0.so -Wl,-rpath,<bins> -lm
 * (PINNED_GGML_VERSION "" pins a ggml older than ggml_version(), b3889). Loading it checks that the
 * library is that release and exits 2 with one line if it is not.
 *
 * The bug classes scripts/engines injects to show the gate catches them (-DINJECT=n):
 *   1 layout swapped (NEOX <-> NORMAL, as a weight converter that permutes q/k the wrong way);
 *   2 positions off by one (p + 1);
 *   3 x read at the wrong dtype (f32 input handed to ggml as f16, as an f16 K cache).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ggml_api.h"
#include "pecheck/impl.h"
#include "pecheck/impl_helpers.h"

#ifndef INJECT
#define INJECT 0
#endif
#ifndef RELEASE
#define RELEASE "an unnamed release"
#endif
#ifndef PINNED_GGML_VERSION
#error "build with -DPINNED_GGML_VERSION='\"x.y.z\"' (\"\" for a ggml older than ggml_version) and -DPINNED_GGML_COMMIT"
#endif

int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }

static ggml_backend_t backend;
static char engine_name[256];

/* The file name of the CPU backend library the registry loaded (libggml-cpu-<level>.so). */
static int note_cpu_library(struct dl_phdr_info *info, size_t size, void *out) {
  (void)size;
  const char *slash = strrchr(info->dlpi_name, '/');
  const char *file = slash ? slash + 1 : info->dlpi_name;
  if (strncmp(file, "libggml-cpu-", 12) == 0) snprintf(out, 64, "%s", file);
  return 0;
}

/* The directory of the library that holds ggml_init: where 0.23.0's registry finds its backends. */
static void ggml_directory(char *out, size_t n) {
  Dl_info info;
  snprintf(out, n, ".");
  if (dladdr((void *)ggml_init, &info) && info.dli_fname) {
    snprintf(out, n, "%s", info.dli_fname);
    char *slash = strrchr(out, '/');
    if (slash) *slash = '\0';
  }
}

/* ggml's warnings and errors to stderr; its progress lines (the registry's "loaded CPU backend
 * from ...", which the name reports) left out. */
static void log_warnings(int level, const char *text, void *user_data) {
  static int showing = 1;
  (void)user_data;
  if (level != GGML_LOG_LEVEL_CONT) showing = level >= GGML_LOG_LEVEL_WARN;
  if (showing) fputs(text, stderr);
}

/* Checks the release, starts the CPU backend with one thread and names it; exits 2 with one line
 * where the library is not the pinned release or no CPU backend starts. */
static void start_engine(void) {
  if (backend) return;
  const char *version = ggml_version ? ggml_version() : "";
  const char *commit = ggml_commit ? ggml_commit() : "";
  if (strcmp(version, PINNED_GGML_VERSION) != 0 || (ggml_commit && strcmp(commit, PINNED_GGML_COMMIT) != 0)) {
    fprintf(stderr, "ggml adapter: built for ggml '%s' (%s) of %s, but the library is ggml '%s' (%s)\n", PINNED_GGML_VERSION,
            PINNED_GGML_COMMIT, RELEASE, version, commit);
    exit(2);
  }
  if (ggml_log_set) ggml_log_set(log_warnings, NULL);
  char cpu_library[64] = "built in";
  if (ggml_backend_load_all_from_path && ggml_backend_init_by_type) {
    char dir[PATH_MAX];
    ggml_directory(dir, sizeof dir);
    ggml_backend_load_all_from_path(dir);
    backend = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, NULL);
    dl_iterate_phdr(note_cpu_library, cpu_library);
  } else if (ggml_backend_cpu_init) {
    backend = ggml_backend_cpu_init();
  }
  if (!backend) {
    fprintf(stderr, "ggml adapter: ggml of %s started no CPU backend\n", RELEASE);
    exit(2);
  }
  /* One thread: each call is small, and the gate's worker is one process among the suite's. */
  void (*set_threads)(ggml_backend_t, int) = ggml_backend_cpu_set_n_threads;
  if (!set_threads && ggml_backend_get_device && ggml_backend_dev_backend_reg && ggml_backend_reg_get_proc_address)
    set_threads = (void (*)(ggml_backend_t, int))ggml_backend_reg_get_proc_address(
        ggml_backend_dev_backend_reg(ggml_backend_get_device(backend)), "ggml_backend_set_n_threads");
  if (set_threads) set_threads(backend, 1);
  snprintf(engine_name, sizeof engine_name, "ggml %s%s%s of %s, CPU backend %s%s", *version ? version : "(unversioned)",
           *commit ? " " : "", commit, RELEASE, cpu_library,
           INJECT == 1 ? ", layout swapped" : INJECT == 2 ? ", positions off by one" : INJECT == 3 ? ", x read as f16" : "");
}

const char *pe_impl_name(void) {
  start_engine();
  return engine_name;
}

/* ggml's arguments for one spec. */
typedef struct rope_args {
  int n_dims, mode, n_ctx_orig, multi;
  int sections[GGML_MROPE_SECTIONS];
  float freq_base, freq_scale, ext_factor, attn_factor, beta_fast, beta_slow;
  float *freq_factors; /* n_dims/2 entries, or NULL */
} rope_args;

static double number(const char *spec, const char *key, double otherwise) {
  const char *text = pe_spec_field(spec, key);
  return text ? strtod(text, NULL) : otherwise;
}

static int is_true(const char *spec, const char *key) {
  const char *text = pe_spec_field(spec, key);
  return text && strncmp(text, "true", 4) == 0;
}

/* The scaling's name ("yarn" for "scaling=yarn(...)") into out; "" without one. */
static void scaling_kind(const char *spec, char *out, size_t n) {
  const char *text = pe_spec_field(spec, "scaling");
  size_t k = 0;
  for (; text && k + 1 < n && text[k] && text[k] != '('; ++k) out[k] = text[k];
  out[k] = '\0';
}

/* Llama 3's factors as convert_hf_to_gguf.py computes them: freqs = 1/base^(2i/r) in float32, the
 * band tests and the blend in double, stored as float32. */
static void llama3_factors(const char *spec, double base, int rotary, float *out) {
  const double factor = number(spec, "factor", 8), low = number(spec, "low_freq_factor", 1),
               high = number(spec, "high_freq_factor", 4), original = number(spec, "original_max", 8192);
  const double low_wavelength = original / low, high_wavelength = original / high;
  for (int i = 0; i < rotary / 2; ++i) {
    const float freq = 1.0f / powf((float)base, (float)(2 * i) / (float)rotary);
    const double wavelength = 2 * M_PI / freq;
    if (wavelength < high_wavelength) out[i] = 1.0f;
    else if (wavelength > low_wavelength) out[i] = (float)factor;
    else {
      const double smooth = (original / wavelength - low) / (high - low);
      out[i] = (float)(1 / ((1 - smooth) / factor + smooth));
    }
  }
}

/* YaRN's magnitude as the spec defines it (magnitude=hf: HF's attention_factor, or mscale ratio,
 * or 1 + 0.1 ln factor; magnitude=ggml: the given attention factor times ggml's own term). */
static double yarn_magnitude(const char *spec, double factor) {
  const char *magnitude = pe_spec_field(spec, "magnitude");
  const double given = number(spec, "attention_factor", NAN);
  const double ggml_term = 1 + 0.1 * log(factor);
  if (magnitude && strncmp(magnitude, "ggml", 4) == 0) return (isnan(given) ? 1 : given) * ggml_term;
  if (!isnan(given)) return given;
  if (factor <= 1) return 1;
  const double mscale = number(spec, "mscale", 0), mscale_all_dim = number(spec, "mscale_all_dim", 0);
  if (mscale != 0 && mscale_all_dim != 0) return (0.1 * mscale * log(factor) + 1) / (0.1 * mscale_all_dim * log(factor) + 1);
  return ggml_term;
}

/* The arguments for spec, or PE_UNSUPPORTED; seq_len is the call's max(pos) + 1 (longrope's
 * choice of factors where the spec gives no seq_len). */
static int32_t map_spec(const char *spec, int64_t dim, int64_t seq_len, rope_args *a) {
  memset(a, 0, sizeof *a);
  a->freq_scale = 1, a->attn_factor = 1;
  if (pe_spec_field(spec, "freqs") || number(spec, "truncate_low", 0) != 0) return PE_UNSUPPORTED;
  if (number(spec, "dim", -1) != (double)dim) return PE_ERROR;
  const double base = number(spec, "base", 10000);
  a->freq_base = (float)base;
  if (strncmp(spec, "mrope(", 6) == 0) {
    const char *layout = pe_spec_field(spec, "layout");
    if (!ggml_rope_multi || (layout && strncmp(layout, "neox", 4) != 0)) return PE_UNSUPPORTED;
    float sections[3];
    if (pe_spec_list(spec, "sections", sections, 3) != 3) return PE_ERROR;
    for (int k = 0; k < 3; ++k) a->sections[k] = (int)sections[k];
    a->n_dims = (int)dim, a->multi = 1;
    a->mode = is_true(spec, "interleaved") ? GGML_ROPE_TYPE_IMROPE : GGML_ROPE_TYPE_MROPE;
    return PE_OK;
  }
  if (strncmp(spec, "rope(", 5) != 0) return PE_UNSUPPORTED;
  const int rotary = (int)number(spec, "rotary_dim", (double)dim);
  const char *layout = pe_spec_field(spec, "layout");
  a->n_dims = rotary;
  a->mode = layout && strncmp(layout, "gptj", 4) == 0 ? GGML_ROPE_TYPE_NORMAL : GGML_ROPE_TYPE_NEOX;
  char kind[32];
  scaling_kind(spec, kind, sizeof kind);
  const double factor = number(spec, "factor", 1);
  if (!*kind) return PE_OK;
  if (strcmp(kind, "linear") == 0) {
    a->freq_scale = (float)(1 / factor);
    return PE_OK;
  }
  if (strcmp(kind, "ntk") == 0) { /* llama.cpp's --rope-freq-base: NTK-aware base * factor^(r/(r-2)) */
    a->freq_base = (float)(base * pow(factor, (double)rotary / (rotary - 2)));
    return PE_OK;
  }
  if (strcmp(kind, "yarn") == 0) {
    const char *magnitude = pe_spec_field(spec, "magnitude");
    const int ggml_rule = magnitude && strncmp(magnitude, "ggml", 4) == 0;
    if (!ggml_rule && !is_true(spec, "truncate")) return PE_UNSUPPORTED; /* ggml always floors and ceils */
    a->n_ctx_orig = (int)number(spec, "original_max", 0);
    a->freq_scale = (float)(1 / factor);
    a->ext_factor = 1;
    a->beta_fast = (float)number(spec, "beta_fast", 32), a->beta_slow = (float)number(spec, "beta_slow", 1);
    a->attn_factor = (float)(yarn_magnitude(spec, factor) / (1 + 0.1 * log(factor)));
    return PE_OK;
  }
  if (strcmp(kind, "llama3") == 0 || strcmp(kind, "longrope") == 0) {
    a->freq_factors = malloc(sizeof(float) * (size_t)(rotary / 2));
    if (!a->freq_factors) return PE_ERROR;
    if (strcmp(kind, "llama3") == 0) {
      llama3_factors(spec, base, rotary, a->freq_factors);
      return PE_OK;
    }
    const double original = number(spec, "original_max", 0), length = number(spec, "seq_len", (double)seq_len);
    const char *list = length > original ? "long_factor" : "short_factor";
    if (pe_spec_list(spec, list, a->freq_factors, rotary / 2) != rotary / 2) return PE_ERROR;
    /* The attention factor: the given one, else sqrt(1 + ln f / ln original), f = factor or max_pos / original. */
    const double given = number(spec, "attention_factor", NAN);
    const double f = pe_spec_field(spec, "factor") ? factor : number(spec, "max_pos", original) / original;
    a->attn_factor = (float)(!isnan(given) ? given : f <= 1 ? 1 : sqrt(1 + log(f) / log(original)));
    return PE_OK;
  }
  return PE_UNSUPPORTED; /* dynamic NTK rescales per call length: llama.cpp has no such rope */
}

/* The positions in ggml's int32 layout (4 per token for rope_multi: t, h, w, and e = t, which
 * keeps the pairs past the sections on t as HF's Qwen3-VL does), or PE_UNSUPPORTED past int32. */
static int32_t ggml_positions(const pe_tensor *pos, int64_t tokens, int multi, int32_t *out) {
  const int64_t *p = (const int64_t *)pos->data;
  const int64_t axes = pos->rank == 2 ? pos->shape[1] : 1;
  if (multi != (axes == 3)) return PE_ERROR;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t k = 0; k < (multi ? 4 : 1); ++k) {
      int64_t v = p[t * axes + (k < 3 ? k : 0)] + (INJECT == 2);
      if (v > INT32_MAX || v < INT32_MIN) return PE_UNSUPPORTED;
      out[k * tokens + t] = (int32_t)v;
    }
  return PE_OK;
}

/* One rope node over a: forward or backward. */
static struct ggml_tensor *rope_node(struct ggml_context *ctx, const rope_args *a, struct ggml_tensor *x, struct ggml_tensor *pos,
                                     struct ggml_tensor *factors, int backward) {
  int mode = a->mode;
  if (INJECT == 1 && !a->multi) mode = mode == GGML_ROPE_TYPE_NEOX ? GGML_ROPE_TYPE_NORMAL : GGML_ROPE_TYPE_NEOX;
  int sections[GGML_MROPE_SECTIONS];
  memcpy(sections, a->sections, sizeof sections);
  if (a->multi)
    return (backward ? ggml_rope_multi_back : ggml_rope_multi)(ctx, x, pos, factors, a->n_dims, sections, mode, a->n_ctx_orig,
                                                               a->freq_base, a->freq_scale, a->ext_factor, a->attn_factor,
                                                               a->beta_fast, a->beta_slow);
  return (backward ? (ggml_rope_ext_back ? ggml_rope_ext_back : ggml_rope_back) : ggml_rope_ext)(
      ctx, x, pos, factors, a->n_dims, mode, a->n_ctx_orig, a->freq_base, a->freq_scale, a->ext_factor, a->attn_factor,
      a->beta_fast, a->beta_slow);
}

/* The ggml type an I/O dtype is handed in. */
static int ggml_type_of(int32_t dtype) { return dtype == PE_F16 || (INJECT == 3 && dtype == PE_F32) ? GGML_TYPE_F16 : GGML_TYPE_F32; }

static void put_input(struct ggml_tensor *t, const pe_tensor *x, int64_t n) {
  if (ggml_type_of(x->dtype) == GGML_TYPE_F16 && x->dtype == PE_F32) { /* the injected bug: f32 rounded to f16 */
    ggml_fp16_t *half = malloc(sizeof(ggml_fp16_t) * (size_t)n);
    ggml_fp32_to_fp16_row((const float *)x->data, half, n);
    ggml_backend_tensor_set(t, half, 0, sizeof(ggml_fp16_t) * (size_t)n);
    free(half);
    return;
  }
  ggml_backend_tensor_set(t, x->data, 0, (x->dtype == PE_F16 ? 2 : 4) * (size_t)n);
}

static void get_output(const struct ggml_tensor *t, pe_tensor *y, int64_t n) {
  if (ggml_type_of(y->dtype) == GGML_TYPE_F16 && y->dtype == PE_F32) {
    ggml_fp16_t *half = malloc(sizeof(ggml_fp16_t) * (size_t)n);
    ggml_backend_tensor_get(t, half, 0, sizeof(ggml_fp16_t) * (size_t)n);
    ggml_fp16_to_fp32_row(half, (float *)y->data, n);
    free(half);
    return;
  }
  ggml_backend_tensor_get(t, y->data, 0, (y->dtype == PE_F16 ? 2 : 4) * (size_t)n);
}

/* Turns each input (x, or dy, or q and k) into its output in one ggml graph. */
static int32_t run_graph(const rope_args *a, const pe_tensor *pos, const pe_tensor **xs, pe_tensor *ys, int n, int backward,
                         char *message, size_t message_size) {
  const int64_t tokens = xs[0]->shape[0];
  int32_t *positions = malloc(sizeof(int32_t) * (size_t)(tokens * 4 + 1));
  int32_t status = positions ? ggml_positions(pos, tokens, a->multi, positions) : PE_ERROR;
  if (status != PE_OK || tokens == 0) {
    free(positions);
    return status;
  }
  struct ggml_init_params params = {ggml_tensor_overhead() * 8 + ggml_graph_overhead(), NULL, true};
  struct ggml_context *ctx = ggml_init(params);
  struct ggml_tensor *p = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, tokens * (a->multi ? 4 : 1));
  struct ggml_tensor *factors = a->freq_factors ? ggml_new_tensor_1d(ctx, GGML_TYPE_F32, a->n_dims / 2) : NULL;
  struct ggml_tensor *in[2], *out[2];
  struct ggml_cgraph *graph = ggml_new_graph(ctx);
  int64_t elements[2] = {0, 0};
  for (int k = 0; k < n; ++k) {
    elements[k] = xs[k]->shape[0] * xs[k]->shape[1] * xs[k]->shape[2];
    in[k] = ggml_new_tensor_3d(ctx, ggml_type_of(xs[k]->dtype), xs[k]->shape[2], xs[k]->shape[1], xs[k]->shape[0]);
    out[k] = rope_node(ctx, a, in[k], p, factors, backward);
    ggml_build_forward_expand(graph, out[k]);
  }
  ggml_backend_buffer_t buffer = ggml_backend_alloc_ctx_tensors(ctx, backend);
  if (!buffer) {
    snprintf(message, message_size, "ggml allocated no buffer for the call's tensors");
    status = PE_ERROR;
  } else {
    ggml_backend_tensor_set(p, positions, 0, sizeof(int32_t) * (size_t)(tokens * (a->multi ? 4 : 1)));
    if (factors) ggml_backend_tensor_set(factors, a->freq_factors, 0, sizeof(float) * (size_t)(a->n_dims / 2));
    for (int k = 0; k < n; ++k) put_input(in[k], xs[k], elements[k]);
    const int computed = ggml_backend_graph_compute(backend, graph);
    if (computed != GGML_STATUS_SUCCESS) {
      snprintf(message, message_size, "ggml_backend_graph_compute returned status %d", computed);
      status = PE_ERROR;
    }
    for (int k = 0; k < n && status == PE_OK; ++k) get_output(out[k], &ys[k], elements[k]);
    ggml_backend_buffer_free(buffer);
  }
  ggml_free(ctx);
  free(positions);
  return status;
}

int32_t pe_impl_run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs,
                    int32_t n_outputs, char *message, size_t message_size) {
  const int backward = strcmp(op, "rotate_grad") == 0, both = strcmp(op, "rotate_qk") == 0;
  if (strcmp(op, "rotate") != 0 && !backward && !both) return PE_UNSUPPORTED;
  if (backward && !ggml_rope_ext_back && !ggml_rope_back) return PE_UNSUPPORTED;
  start_engine();
  const pe_tensor *xs[2] = {pe_find_input(inputs, n_inputs, both ? "q" : backward ? "dy" : "x"),
                            both ? pe_find_input(inputs, n_inputs, "k") : NULL};
  const pe_tensor *pos = pe_find_input(inputs, n_inputs, "pos");
  const int n = both ? 2 : 1;
  for (int k = 0; k < n; ++k) {
    if (xs[k] && xs[k]->dtype != PE_F32 && xs[k]->dtype != PE_F16) return PE_UNSUPPORTED; /* ggml ropes f32 and f16 */
    if (!xs[k] || xs[k]->rank != 3 || n_outputs != n || outputs[k].dtype != xs[k]->dtype || !pos || pos->dtype != PE_I64) {
      snprintf(message, message_size, "%s needs its [T, H, D] inputs, their outputs in one dtype, and pos in i64", op);
      return PE_ERROR;
    }
  }
  int64_t seq_len = 0;
  for (int64_t k = 0; k < pos->shape[0] * (pos->rank == 2 ? pos->shape[1] : 1); ++k)
    if (((const int64_t *)pos->data)[k] + 1 > seq_len) seq_len = ((const int64_t *)pos->data)[k] + 1;
  rope_args a;
  int32_t status = map_spec(spec, xs[0]->shape[2], seq_len, &a);
  if (status == PE_ERROR) snprintf(message, message_size, "the ggml adapter could not read the spec's dim, sections or factors");
  if (status == PE_OK) status = run_graph(&a, pos, xs, outputs, n, backward, message, message_size);
  free(a.freq_factors);
  return status;
}
