/* ONNX Runtime as a pecheck gate plugin: apply_tables through the RotaryEmbedding op on ONNX
 * Runtime's CPU provider, the way an exported model calls it: x [T, H, D] as X [1, T, H D] with
 * num_heads = H, the cos and sin tables as cos_cache and sin_cache [T, pairs] and position_ids
 * 0..T-1, interleaved = 1 for layout=gptj (pairs (2i, 2i+1)) and 0 for neox (pairs (i, i + r/2)),
 * rotary_embedding_dim = 2 pairs. The model is one node, written here as ONNX protobuf bytes.
 *
 * Two ops, chosen at build time: -DORT_CONTRIB=0 the standard ai.onnx RotaryEmbedding (opset 23,
 * ONNX Runtime 1.22 on), -DORT_CONTRIB=1 the com.microsoft contrib op (inputs in another order:
 * input, position_ids, cos_cache, sin_cache). Answered PE_UNSUPPORTED: every other op, tables in
 * another dtype than x (the op takes one type T), and an I/O dtype ONNX Runtime has no CPU kernel
 * for (its session reports NOT_IMPLEMENTED: bf16 in both releases).
 *
 * Built and run by scripts/engines against a release it names at build time:
 *   cc -O2 -shared -fPIC -I<pecheck>/src/gate ort_rope_plugin.c -o libort_rope.so -DORT_CONTRIB=0 \
 *      -DPINNED_ORT_VERSION='"1.30.0"' -L<bin> -l:libonnxruntime.so.1 -Wl,-rpath,<bin>
 * Loading it checks that the library is that release and exits 2 with one line if it is not.
 *
 * The bug classes scripts/engines injects to show the gate catches them (-DINJECT=n):
 *   1 layout swapped (interleaved flipped, as an exporter that writes the other convention);
 *   2 positions off by one (position_ids t + 1 into a cache one row longer, its last row repeated);
 *   3 tables read at the wrong dtype (an f32 cache rounded to f16, as a cache exported at half).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ort_api.h"
#include "pecheck/impl.h"
#include "pecheck/impl_helpers.h"

#ifndef INJECT
#define INJECT 0
#endif
#ifndef ORT_CONTRIB
#define ORT_CONTRIB 0
#endif
#ifndef PINNED_ORT_VERSION
#error "build with -DPINNED_ORT_VERSION='\"x.y.z\"'"
#endif

int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }

static const OrtApi *api;
static OrtEnv *env;
static OrtMemoryInfo *cpu_memory;
static char engine_name[256];

static void fail_to_start(const char *what, OrtStatus *status) {
  fprintf(stderr, "ONNX Runtime adapter: %s: %s\n", what, status ? ORT_CALL(api, GetErrorMessage)(status) : "failed");
  exit(2);
}

/* Checks the release and creates the environment; exits 2 with one line where it cannot. */
static void start_engine(void) {
  if (api) return;
  const OrtApiBase *base = OrtGetApiBase();
  const char *version = base->GetVersionString();
  if (strcmp(version, PINNED_ORT_VERSION) != 0) {
    fprintf(stderr, "ONNX Runtime adapter: built for ONNX Runtime %s, but the library is %s\n", PINNED_ORT_VERSION, version);
    exit(2);
  }
  api = base->GetApi(1);
  if (!api) fail_to_start("GetApi(1)", NULL);
  OrtStatus *status = ORT_CALL(api, CreateEnv)(ORT_LOGGING_LEVEL_FATAL, "pecheck", &env);
  if (!status) status = ORT_CALL(api, CreateCpuMemoryInfo)(OrtArenaAllocator, OrtMemTypeDefault, &cpu_memory);
  if (status) fail_to_start("creating its environment", status);
  snprintf(engine_name, sizeof engine_name, "ONNX Runtime %s, %s RotaryEmbedding on the CPU provider%s", version,
           ORT_CONTRIB ? "com.microsoft" : "ai.onnx opset 23",
           INJECT == 1 ? ", layout swapped" : INJECT == 2 ? ", positions off by one" : INJECT == 3 ? ", tables read as f16" : "");
}

const char *pe_impl_name(void) {
  start_engine();
  return engine_name;
}

/* ---- The model: protobuf wire format (varints and length-delimited fields) into a growing buffer. */
typedef struct bytes {
  unsigned char *data;
  size_t size, capacity;
} bytes;

static void put(bytes *b, const void *data, size_t n) {
  if (b->size + n > b->capacity) {
    b->capacity = (b->size + n) * 2 + 64;
    b->data = realloc(b->data, b->capacity);
  }
  memcpy(b->data + b->size, data, n);
  b->size += n;
}
static void varint(bytes *b, uint64_t v) {
  do {
    unsigned char byte = (unsigned char)(v & 0x7f);
    v >>= 7;
    if (v) byte |= 0x80;
    put(b, &byte, 1);
  } while (v);
}
static void number_field(bytes *b, int field, uint64_t v) { varint(b, (uint64_t)field << 3), varint(b, v); }
static void bytes_field(bytes *b, int field, const void *data, size_t n) {
  varint(b, (uint64_t)field << 3 | 2), varint(b, n), put(b, data, n);
}
static void text_field(bytes *b, int field, const char *text) { bytes_field(b, field, text, strlen(text)); }
/* A nested message as field `field` of b (freed). */
static void message_field(bytes *b, int field, bytes *message) {
  bytes_field(b, field, message->data, message->size);
  free(message->data);
}

/* AttributeProto {name = 1, i = 3, type = 20 (INT = 2)} as NodeProto.attribute (5). */
static void int_attribute(bytes *node, const char *name, int64_t v) {
  bytes a = {0};
  text_field(&a, 1, name), number_field(&a, 3, (uint64_t)v), number_field(&a, 20, 2);
  message_field(node, 5, &a);
}

/* ValueInfoProto {name, type: TypeProto.tensor_type {elem_type, shape of symbolic dims}} as field. */
static void value_info(bytes *graph, int field, const char *name, int elem_type, int rank) {
  bytes shape = {0}, tensor = {0}, type = {0}, info = {0};
  for (int d = 0; d < rank; ++d) {
    bytes dim = {0};
    char symbol[32];
    snprintf(symbol, sizeof symbol, "%s_%d", name, d);
    text_field(&dim, 2, symbol); /* Dimension.dim_param */
    message_field(&shape, 1, &dim);
  }
  number_field(&tensor, 1, (uint64_t)elem_type), message_field(&tensor, 2, &shape);
  message_field(&type, 1, &tensor);
  text_field(&info, 1, name), message_field(&info, 2, &type);
  message_field(graph, field, &info);
}

/* The one-node model for these attributes. */
static bytes rotary_model(int elem_type, int interleaved, int64_t heads, int64_t rotary) {
  static const char *const standard_inputs[4] = {"X", "cos_cache", "sin_cache", "position_ids"};
  static const char *const contrib_inputs[4] = {"X", "position_ids", "cos_cache", "sin_cache"};
  const char *const *inputs = ORT_CONTRIB ? contrib_inputs : standard_inputs;
  bytes node = {0}, graph = {0}, model = {0};
  for (int k = 0; k < 4; ++k) text_field(&node, 1, inputs[k]);
  text_field(&node, 2, "Y"), text_field(&node, 3, "rope"), text_field(&node, 4, "RotaryEmbedding");
  if (ORT_CONTRIB) text_field(&node, 7, "com.microsoft");
  int_attribute(&node, "interleaved", interleaved);
  int_attribute(&node, "num_heads", heads);
  int_attribute(&node, "rotary_embedding_dim", rotary);
  message_field(&graph, 1, &node);
  text_field(&graph, 2, "pecheck");
  for (int k = 0; k < 4; ++k)
    value_info(&graph, 11, inputs[k], strcmp(inputs[k], "position_ids") == 0 ? ONNX_INT64 : elem_type,
               strncmp(inputs[k], "X", 1) == 0 ? 3 : 2);
  value_info(&graph, 12, "Y", elem_type, 3);
  number_field(&model, 1, 10); /* ir_version 10: ONNX 1.16, read by both releases */
  bytes opset = {0}, contrib = {0};
  number_field(&opset, 2, ORT_CONTRIB ? 17 : 23); /* ai.onnx */
  message_field(&model, 8, &opset);
  if (ORT_CONTRIB) text_field(&contrib, 1, "com.microsoft"), number_field(&contrib, 2, 1), message_field(&model, 8, &contrib);
  message_field(&model, 7, &graph);
  return model;
}

/* ---- Sessions, one per (dtype, interleaved, heads, rotary), the last SESSION_CACHE kept for later calls. */
#ifndef SESSION_CACHE
#define SESSION_CACHE 32
#endif
typedef struct cached_session {
  int elem_type, interleaved;
  int64_t heads, rotary;
  OrtSession *session;
} cached_session;
static cached_session sessions[SESSION_CACHE];
static int n_sessions, next_replaced;

/* The session for these attributes, or NULL with *status set (PE_UNSUPPORTED where ONNX Runtime has
 * no kernel for the type). */
static OrtSession *session_for(int elem_type, int interleaved, int64_t heads, int64_t rotary, int32_t *status, char *message,
                               size_t message_size) {
  for (int k = 0; k < n_sessions; ++k)
    if (sessions[k].elem_type == elem_type && sessions[k].interleaved == interleaved && sessions[k].heads == heads &&
        sessions[k].rotary == rotary)
      return sessions[k].session;
  bytes model = rotary_model(elem_type, interleaved, heads, rotary);
  OrtSessionOptions *options = NULL;
  OrtSession *session = NULL;
  OrtStatus *error = ORT_CALL(api, CreateSessionOptions)(&options);
  if (!error) error = ORT_CALL(api, SetIntraOpNumThreads)(options, 1);
  if (!error) error = ORT_CALL(api, CreateSessionFromArray)(env, model.data, model.size, options, &session);
  if (options) ORT_CALL(api, ReleaseSessionOptions)(options);
  free(model.data);
  if (error) {
    *status = ORT_CALL(api, GetErrorCode)(error) == ORT_NOT_IMPLEMENTED ? PE_UNSUPPORTED : PE_ERROR;
    snprintf(message, message_size, "ONNX Runtime refused the RotaryEmbedding model: %s", ORT_CALL(api, GetErrorMessage)(error));
    ORT_CALL(api, ReleaseStatus)(error);
    return NULL;
  }
  cached_session *slot = &sessions[n_sessions < SESSION_CACHE ? n_sessions++ : next_replaced++ % SESSION_CACHE];
  if (slot->session) ORT_CALL(api, ReleaseSession)(slot->session);
  *slot = (cached_session){elem_type, interleaved, heads, rotary, session};
  return session;
}

static int element_type(int32_t dtype) {
  return dtype == PE_F32 ? ONNX_FLOAT : dtype == PE_F16 ? ONNX_FLOAT16 : dtype == PE_BF16 ? ONNX_BFLOAT16 : 0;
}

/* v rounded to 11 significant bits (f16's precision; the tables lie in [-1, 1]), ties to even. */
static float round_to_half_precision(float v) {
  if (v == 0 || !isfinite(v)) return v;
  int e;
  frexpf(v, &e);
  const float quantum = ldexpf(1.0f, e - 11);
  return nearbyintf(v / quantum) * quantum;
}

/* A cache of rows+1 rows holding the table (row t for token t; the extra row repeats the last), in
 * the tensor's dtype; the injected bug 3 rounds an f32 table to f16's precision. */
static void *cache_of(const pe_tensor *table, int64_t rows, int64_t pairs, size_t element) {
  unsigned char *cache = malloc(element * (size_t)((rows + 1) * pairs));
  memcpy(cache, table->data, element * (size_t)(rows * pairs));
  memcpy(cache + element * (size_t)(rows * pairs), cache + element * (size_t)((rows - 1) * pairs), element * (size_t)pairs);
  if (INJECT == 3 && table->dtype == PE_F32)
    for (int64_t k = 0; k < (rows + 1) * pairs; ++k) ((float *)cache)[k] = round_to_half_precision(((float *)cache)[k]);
  return cache;
}

static int32_t apply_tables(const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *y, char *message,
                            size_t message_size) {
  const pe_tensor *x = pe_find_input(inputs, n_inputs, "x"), *cos_t = pe_find_input(inputs, n_inputs, "cos"),
                  *sin_t = pe_find_input(inputs, n_inputs, "sin");
  if (!x || !cos_t || !sin_t || x->rank != 3 || cos_t->rank != 2 || sin_t->rank != 2 || y->dtype != x->dtype) {
    snprintf(message, message_size, "apply_tables needs x [T, H, D] and y in one dtype, cos and sin [T, pairs]");
    return PE_ERROR;
  }
  const int elem_type = element_type(x->dtype);
  if (!elem_type || cos_t->dtype != x->dtype || sin_t->dtype != x->dtype) return PE_UNSUPPORTED;
  const int64_t tokens = x->shape[0], heads = x->shape[1], dim = x->shape[2], pairs = cos_t->shape[1];
  if (tokens == 0 || heads == 0) return PE_OK;
  const char *layout = pe_spec_field(spec, "layout");
  int interleaved = layout && strncmp(layout, "gptj", 4) == 0;
  if (INJECT == 1) interleaved = !interleaved;
  int32_t status = PE_OK;
  OrtSession *session = session_for(elem_type, interleaved, heads, 2 * pairs, &status, message, message_size);
  if (!session) return status;
  const size_t element = x->dtype == PE_F32 ? 4 : 2;
  void *cos_cache = cache_of(cos_t, tokens, pairs, element), *sin_cache = cache_of(sin_t, tokens, pairs, element);
  int64_t *positions = malloc(sizeof(int64_t) * (size_t)tokens);
  for (int64_t t = 0; t < tokens; ++t) positions[t] = t + (INJECT == 2);
  const int64_t x_shape[3] = {1, tokens, heads * dim}, cache_shape[2] = {tokens + 1, pairs}, position_shape[2] = {1, tokens};
  const size_t x_bytes = element * (size_t)(tokens * heads * dim), cache_bytes = element * (size_t)((tokens + 1) * pairs);
  OrtValue *values[5] = {0};
  OrtStatus *error = ORT_CALL(api, CreateTensorWithDataAsOrtValue)(cpu_memory, x->data, x_bytes, x_shape, 3, elem_type, &values[0]);
  if (!error) error = ORT_CALL(api, CreateTensorWithDataAsOrtValue)(cpu_memory, cos_cache, cache_bytes, cache_shape, 2, elem_type, &values[1]);
  if (!error) error = ORT_CALL(api, CreateTensorWithDataAsOrtValue)(cpu_memory, sin_cache, cache_bytes, cache_shape, 2, elem_type, &values[2]);
  if (!error)
    error = ORT_CALL(api, CreateTensorWithDataAsOrtValue)(cpu_memory, positions, sizeof(int64_t) * (size_t)tokens, position_shape, 2,
                                                          ONNX_INT64, &values[3]);
  if (!error) error = ORT_CALL(api, CreateTensorWithDataAsOrtValue)(cpu_memory, y->data, x_bytes, x_shape, 3, elem_type, &values[4]);
  if (!error) {
    /* The inputs in the op's order: X, then the caches and positions where each op wants them. */
    const char *names[4] = {"X", "cos_cache", "sin_cache", "position_ids"};
    const OrtValue *ordered[4] = {values[0], values[1], values[2], values[3]};
    if (ORT_CONTRIB) {
      names[1] = "position_ids", names[2] = "cos_cache", names[3] = "sin_cache";
      ordered[1] = values[3], ordered[2] = values[1], ordered[3] = values[2];
    }
    const char *output_name = "Y";
    error = ORT_CALL(api, Run)(session, NULL, names, ordered, 4, &output_name, 1, &values[4]);
  }
  if (error) {
    snprintf(message, message_size, "ONNX Runtime's RotaryEmbedding failed: %s", ORT_CALL(api, GetErrorMessage)(error));
    ORT_CALL(api, ReleaseStatus)(error);
    status = PE_ERROR;
  }
  for (int k = 0; k < 5; ++k)
    if (values[k]) ORT_CALL(api, ReleaseValue)(values[k]);
  free(cos_cache), free(sin_cache), free(positions);
  return status;
}

int32_t pe_impl_run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs,
                    int32_t n_outputs, char *message, size_t message_size) {
  if (strcmp(op, "apply_tables") != 0) return PE_UNSUPPORTED;
  start_engine();
  if (n_outputs != 1) {
    snprintf(message, message_size, "apply_tables has one output");
    return PE_ERROR;
  }
  return apply_tables(spec, inputs, n_inputs, &outputs[0], message, message_size);
}
