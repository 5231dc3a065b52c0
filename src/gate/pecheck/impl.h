/* pecheck/impl.h: the C ABI (version 1) an implementation under test exports for `pecheck gate --impl lib.so`.
 *
 * The gate calls pe_impl_run once per case with one op ("rotate", "rotate_grad", "rotate_qk", "apply_tables",
 * "encode", "bias", "bucket", "scale", "inv_freq", "attend"), the spec as canonical pecheck text (e.g. "rope(dim=128, base=10000, ...)"),
 * the named input tensors and the output tensors to fill (allocated by the gate, already
 * shaped). Names, shapes and meanings are those of `pecheck eval` (golden/README.md lists
 * them): rotate: x [T, H, D] and pos [T] (or [T, A]) -> y [T, H, D]; rotate_grad (rotate's
 * backward pass): dy [T, H, D] and pos -> dx [T, H, D] = (A S R_p)^T dy (S: xPos's scale by role);
 * rotate_qk: q [T, Hq, D], k [T, Hk, D] (Hq a multiple of Hk: grouped-query attention) and pos ->
 * q_out [T, Hq, D], k_out [T, Hk, D] (outputs in that order), each what rotate gives its input
 * (xPos: q scaled as queries, k as keys; no role input);
 * apply_tables: x [T, H, D], cos and sin [T, pairs] (pairs: rotary_dim/2 for rope, D/2 for rope_nd
 * and mrope; a row per token, a column per pair, in the I/O dtype) -> y
 * [T, H, D], the pairs turned by the given tables; encode: pos -> pe;
 * bias: qpos, kpos -> bias [H, T, S]; bucket: rel -> bucket; inv_freq: -> inv_freq,
 * attention_factor. Arrays are row-major and little-endian. Real outputs have the dtype of the
 * real inputs (the --dtype of the run); positions are PE_I64.
 *
 * Return PE_OK, PE_UNSUPPORTED for an op or spec the implementation does not handle (the gate
 * reports UNSUPPORTED, not a failure), or PE_ERROR with a message (NUL-terminated, at most
 * message_size bytes) for anything else.
 *
 * No code of the plugin runs in the gate's process. A worker process loads it once, reads
 * pe_impl_abi_version and pe_impl_name (at most 256 printable bytes, NUL-terminated) and serves
 * the calls; any fault while loading (an exit or a crash in a constructor or in these functions,
 * a hang, a bad name) makes the plugin unusable. Each call runs with the gate's time limit and a
 * budget of 1 GiB of resident memory more than the worker held when it began (a child process
 * the call forks and waits for counts too). Inputs are
 * read-only; every tensor starts a page (so it is 64-byte aligned) and is fenced by inaccessible
 * pages; outputs start zeroed; the status is a sentinel until pe_impl_run returns. A crash, a
 * hang, running out of memory, an exit inside pe_impl_run, a write outside an output or into an
 * input, or a status other than the three above is reported as a failure of the case that did
 * it, and a fresh worker serves the next call (a crash after earlier calls is tried again in a
 * fresh worker, and the report says when only the earlier calls made it crash). A worker whose
 * call left a child process behind, or that holds 1 GiB more than it began with, is replaced
 * before the next call; `--isolation call` gives every call a worker of its own. Plugins may keep
 * state between calls (a context, a thread pool), but must not count on it: any call may be the
 * first of a process. Anything the plugin prints on stdout goes to stderr.
 */
#ifndef PECHECK_IMPL_H
#define PECHECK_IMPL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pe_dtype { PE_F64 = 0, PE_F32 = 1, PE_F16 = 2, PE_BF16 = 3, PE_I64 = 4, PE_I32 = 5 };

typedef struct pe_tensor {
  const char *name;
  int32_t dtype;         /* enum pe_dtype */
  int32_t rank;
  const int64_t *shape;  /* rank entries */
  void *data;            /* row-major, little-endian */
} pe_tensor;

enum pe_status { PE_OK = 0, PE_UNSUPPORTED = 1, PE_ERROR = 2 };

#define PE_IMPL_ABI_VERSION 1

int32_t pe_impl_abi_version(void); /* returns PE_IMPL_ABI_VERSION */
const char *pe_impl_name(void);
int32_t pe_impl_run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs,
                    int32_t n_outputs, char *message, size_t message_size);

#ifdef __cplusplus
}
#endif

#endif /* PECHECK_IMPL_H */
