/* ort_api.h: the part of ONNX Runtime's C API the ONNX Runtime adapter calls, declared here from the
 * documented onnxruntime_c_api.h. The library exports one symbol, OrtGetApiBase; everything else is
 * a slot of the OrtApi table it returns. That table is append-only (ONNX Runtime asserts the
 * offsets of version 1's slots at build time), so the version-1 table below is the same in the
 * pinned releases 1.20.1 and 1.30.0, and GetApi(1) serves it in both.
 */
#ifndef PECHECK_ENGINES_ORT_API_H
#define PECHECK_ENGINES_ORT_API_H

#include <stddef.h>
#include <stdint.h>

typedef struct OrtStatus OrtStatus; /* NULL: success */
typedef struct OrtEnv OrtEnv;
typedef struct OrtSession OrtSession;
typedef struct OrtSessionOptions OrtSessionOptions;
typedef struct OrtMemoryInfo OrtMemoryInfo;
typedef struct OrtValue OrtValue;

enum { ORT_LOGGING_LEVEL_FATAL = 4 };
enum { ORT_NOT_IMPLEMENTED = 9 };                   /* OrtErrorCode: no kernel for a type or op */
enum { OrtArenaAllocator = 1 };                     /* OrtAllocatorType */
enum { OrtMemTypeDefault = 0 };                     /* OrtMemType */
enum {                                              /* ONNXTensorElementDataType = TensorProto.DataType */
  ONNX_FLOAT = 1, ONNX_INT64 = 7, ONNX_FLOAT16 = 10, ONNX_BFLOAT16 = 16
};

typedef struct OrtApi OrtApi;
typedef struct OrtApiBase {
  const OrtApi *(*GetApi)(uint32_t version);
  const char *(*GetVersionString)(void);
} OrtApiBase;
const OrtApiBase *OrtGetApiBase(void);

/* Version 1's slots, in the table's order (each a function pointer). */
enum {
  ORT_SLOT_GetErrorCode = 1,
  ORT_SLOT_GetErrorMessage = 2,
  ORT_SLOT_CreateEnv = 3,
  ORT_SLOT_CreateSessionFromArray = 8,
  ORT_SLOT_Run = 9,
  ORT_SLOT_CreateSessionOptions = 10,
  ORT_SLOT_SetIntraOpNumThreads = 24,
  ORT_SLOT_CreateTensorWithDataAsOrtValue = 49,
  ORT_SLOT_CreateCpuMemoryInfo = 69,
  ORT_SLOT_ReleaseStatus = 93,
  ORT_SLOT_ReleaseMemoryInfo = 94,
  ORT_SLOT_ReleaseSession = 95,
  ORT_SLOT_ReleaseValue = 96,
  ORT_SLOT_ReleaseSessionOptions = 100,
};

typedef int (*OrtGetErrorCode)(const OrtStatus *status);
typedef const char *(*OrtGetErrorMessage)(const OrtStatus *status);
typedef OrtStatus *(*OrtCreateEnv)(int log_severity_level, const char *logid, OrtEnv **out);
typedef OrtStatus *(*OrtCreateSessionFromArray)(const OrtEnv *env, const void *model_data, size_t model_data_length,
                                                const OrtSessionOptions *options, OrtSession **out);
typedef OrtStatus *(*OrtRun)(OrtSession *session, const void *run_options, const char *const *input_names,
                             const OrtValue *const *inputs, size_t input_len, const char *const *output_names,
                             size_t output_names_len, OrtValue **outputs);
typedef OrtStatus *(*OrtCreateSessionOptions)(OrtSessionOptions **options);
typedef OrtStatus *(*OrtSetIntraOpNumThreads)(OrtSessionOptions *options, int intra_op_num_threads);
typedef OrtStatus *(*OrtCreateTensorWithDataAsOrtValue)(const OrtMemoryInfo *info, void *p_data, size_t p_data_len,
                                                        const int64_t *shape, size_t shape_len, int type, OrtValue **out);
typedef OrtStatus *(*OrtCreateCpuMemoryInfo)(int type, int mem_type, OrtMemoryInfo **out);
typedef void (*OrtReleaseStatus)(OrtStatus *status);
typedef void (*OrtReleaseMemoryInfo)(OrtMemoryInfo *info);
typedef void (*OrtReleaseSession)(OrtSession *session);
typedef void (*OrtReleaseValue)(OrtValue *value);
typedef void (*OrtReleaseSessionOptions)(OrtSessionOptions *options);

/* Slot n of the table, as the function type it holds. */
#define ORT_CALL(api, name) ((Ort##name)(((void *const *)(api))[ORT_SLOT_##name]))

#endif /* PECHECK_ENGINES_ORT_API_H */
