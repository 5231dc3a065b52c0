/* ggml_api.h: the part of ggml's C API the ggml adapter calls, declared here from the documented
 * signatures in ggml-org/ggml's include/ggml.h, ggml-backend.h and ggml-alloc.h. The values and
 * signatures below are the same in the two pinned releases (node-llama-cpp 3.21.1: ggml 0.23.0,
 * commit 5b4ebc5, split into libggml-base.so, the loader libggml.v0.4.0.so and one
 * libggml-cpu-*.so per x86 level; node-llama-cpp 3.1.1: llama.cpp b3889, one libggml.so).
 * What only one of them exports is declared weak: it reads as NULL where the library lacks it.
 */
#ifndef PECHECK_ENGINES_GGML_API_H
#define PECHECK_ENGINES_GGML_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GGML_OPTIONAL __attribute__((weak))

/* enum ggml_type: the values this adapter uses. */
enum { GGML_TYPE_F32 = 0, GGML_TYPE_F16 = 1, GGML_TYPE_I32 = 26 };

/* The rope modes: NORMAL turns adjacent pairs (GPT-J), NEOX the halves (rotate_half); MROPE and
 * IMROPE (ggml_rope_multi) pair as NEOX and pick each pair's position row by sections. */
enum { GGML_ROPE_TYPE_NORMAL = 0, GGML_ROPE_TYPE_NEOX = 2, GGML_ROPE_TYPE_MROPE = 8, GGML_ROPE_TYPE_IMROPE = 40 };
#define GGML_MROPE_SECTIONS 4

enum { GGML_STATUS_SUCCESS = 0 };                /* enum ggml_status */
enum { GGML_BACKEND_DEVICE_TYPE_CPU = 0 };        /* enum ggml_backend_dev_type */

typedef uint16_t ggml_fp16_t;
struct ggml_context;
struct ggml_tensor;
struct ggml_cgraph;
typedef struct ggml_backend *ggml_backend_t;
typedef struct ggml_backend_buffer *ggml_backend_buffer_t;
typedef struct ggml_backend_device *ggml_backend_dev_t;
typedef struct ggml_backend_reg *ggml_backend_reg_t;

struct ggml_init_params {
  size_t mem_size;   /* bytes of the context's pool */
  void *mem_buffer;  /* NULL: ggml allocates it */
  bool no_alloc;     /* true: tensors get their memory from a backend buffer */
};

struct ggml_context *ggml_init(struct ggml_init_params params);
void ggml_free(struct ggml_context *ctx);
size_t ggml_tensor_overhead(void);
size_t ggml_graph_overhead(void);
struct ggml_tensor *ggml_new_tensor_1d(struct ggml_context *ctx, int type, int64_t ne0);
struct ggml_tensor *ggml_new_tensor_3d(struct ggml_context *ctx, int type, int64_t ne0, int64_t ne1, int64_t ne2);
struct ggml_cgraph *ggml_new_graph(struct ggml_context *ctx);
void ggml_build_forward_expand(struct ggml_cgraph *graph, struct ggml_tensor *tensor);
void ggml_fp16_to_fp32_row(const ggml_fp16_t *x, float *y, int64_t n);
void ggml_fp32_to_fp16_row(const float *x, ggml_fp16_t *y, int64_t n);

/* a: [ne0 = head dim, ne1 = heads, ne2 = tokens]; b: I32 positions (4 per token for rope_multi);
 * c: optional F32 frequency factors, theta / c[i]. */
struct ggml_tensor *ggml_rope_ext(struct ggml_context *ctx, struct ggml_tensor *a, struct ggml_tensor *b, struct ggml_tensor *c,
                                  int n_dims, int mode, int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                  float attn_factor, float beta_fast, float beta_slow);
/* The backward pass (the sine's sign flipped): ggml_rope_ext_back in 0.23.0, ggml_rope_back in b3889. */
GGML_OPTIONAL struct ggml_tensor *ggml_rope_ext_back(struct ggml_context *ctx, struct ggml_tensor *a, struct ggml_tensor *b,
                                                     struct ggml_tensor *c, int n_dims, int mode, int n_ctx_orig, float freq_base,
                                                     float freq_scale, float ext_factor, float attn_factor, float beta_fast,
                                                     float beta_slow);
GGML_OPTIONAL struct ggml_tensor *ggml_rope_back(struct ggml_context *ctx, struct ggml_tensor *a, struct ggml_tensor *b,
                                                 struct ggml_tensor *c, int n_dims, int mode, int n_ctx_orig, float freq_base,
                                                 float freq_scale, float ext_factor, float attn_factor, float beta_fast,
                                                 float beta_slow);
/* M-RoPE (0.23.0 only). */
GGML_OPTIONAL struct ggml_tensor *ggml_rope_multi(struct ggml_context *ctx, struct ggml_tensor *a, struct ggml_tensor *b,
                                                  struct ggml_tensor *c, int n_dims, int sections[GGML_MROPE_SECTIONS], int mode,
                                                  int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                                  float attn_factor, float beta_fast, float beta_slow);
GGML_OPTIONAL struct ggml_tensor *ggml_rope_multi_back(struct ggml_context *ctx, struct ggml_tensor *a, struct ggml_tensor *b,
                                                       struct ggml_tensor *c, int n_dims, int sections[GGML_MROPE_SECTIONS], int mode,
                                                       int n_ctx_orig, float freq_base, float freq_scale, float ext_factor,
                                                       float attn_factor, float beta_fast, float beta_slow);

/* Logging: ggml writes to stderr unless a callback is set. Levels: DEBUG 1, INFO 2, WARN 3, ERROR 4,
 * CONT 5 (the previous message continued). */
enum { GGML_LOG_LEVEL_WARN = 3, GGML_LOG_LEVEL_CONT = 5 };
typedef void (*ggml_log_callback)(int level, const char *text, void *user_data);
GGML_OPTIONAL void ggml_log_set(ggml_log_callback callback, void *user_data);

/* The version (0.23.0 only; b3889 predates it). */
GGML_OPTIONAL const char *ggml_version(void);
GGML_OPTIONAL const char *ggml_commit(void);

/* Backends: 0.23.0 loads the CPU backend from a directory (its best libggml-cpu-*.so for this CPU);
 * b3889 has it built in. */
GGML_OPTIONAL void ggml_backend_load_all_from_path(const char *dir_path);
GGML_OPTIONAL ggml_backend_t ggml_backend_init_by_type(int type, const char *params);
GGML_OPTIONAL ggml_backend_t ggml_backend_cpu_init(void);
GGML_OPTIONAL void ggml_backend_cpu_set_n_threads(ggml_backend_t backend, int n_threads);
GGML_OPTIONAL ggml_backend_dev_t ggml_backend_get_device(ggml_backend_t backend);
GGML_OPTIONAL ggml_backend_reg_t ggml_backend_dev_backend_reg(ggml_backend_dev_t device);
GGML_OPTIONAL void *ggml_backend_reg_get_proc_address(ggml_backend_reg_t reg, const char *name);
ggml_backend_buffer_t ggml_backend_alloc_ctx_tensors(struct ggml_context *ctx, ggml_backend_t backend);
void ggml_backend_tensor_set(struct ggml_tensor *tensor, const void *data, size_t offset, size_t size);
void ggml_backend_tensor_get(const struct ggml_tensor *tensor, void *data, size_t offset, size_t size);
int ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *graph);
void ggml_backend_buffer_free(ggml_backend_buffer_t buffer);

#endif /* PECHECK_ENGINES_GGML_API_H */
