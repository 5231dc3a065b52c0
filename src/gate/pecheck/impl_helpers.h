/* pecheck/impl_helpers.h: small helpers for plugins written in C (header-only, optional). */
#ifndef PECHECK_IMPL_HELPERS_H
#define PECHECK_IMPL_HELPERS_H

#include <stdlib.h>
#include <string.h>

#include "pecheck/impl.h"

/* The text after "key=" in a canonical spec ("rope(dim=128, base=10000, ...)"), or NULL.
 * Matches whole keys only: "dim" does not find "rotary_dim". */
static inline const char *pe_spec_field(const char *spec, const char *key) {
  const size_t n = strlen(key);
  for (const char *p = strstr(spec, key); p; p = strstr(p + 1, key))
    if ((p == spec || p[-1] == '(' || p[-1] == ' ') && p[n] == '=') return p + n + 1;
  return NULL;
}

/* The numbers of a list field "key=[a, b, ...]" read into out (at most n); returns how many were read. */
static inline long pe_spec_list(const char *spec, const char *key, float *out, long n) {
  const char *p = pe_spec_field(spec, key);
  if (!p || *p != '[') return 0;
  long k = 0;
  for (++p; k < n && *p && *p != ']'; ++k) {
    char *end;
    out[k] = strtof(p, &end);
    if (end == p) return k;
    p = end;
    while (*p == ',' || *p == ' ') ++p;
  }
  return k;
}

/* The input tensor called `name`, or NULL. */
static inline const pe_tensor *pe_find_input(const pe_tensor *inputs, int32_t n, const char *name) {
  for (int32_t k = 0; k < n; ++k)
    if (strcmp(inputs[k].name, name) == 0) return &inputs[k];
  return NULL;
}

#endif /* PECHECK_IMPL_HELPERS_H */
