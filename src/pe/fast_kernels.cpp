// Chooses the fast kernels' flavour at run time: AVX-512, else FMA (with AVX2), where this CPU has it, else Dekker's.
#include "pe/fast_kernels.hpp"

namespace pe {

#ifdef PECHECK_FMA_KERNELS
extern const fast_kernels fma_flavour_kernels;  // fast_kernels_fma.cpp
#endif

const fast_kernels* fma_kernels() {
#ifdef PECHECK_FMA_KERNELS
  static const bool supported = __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  return supported ? &fma_flavour_kernels : nullptr;
#else
  return nullptr;
#endif
}

#ifdef PECHECK_AVX512_KERNELS
extern const fast_kernels avx512_flavour_kernels;  // fast_kernels_avx512.cpp
#endif

const fast_kernels* avx512_kernels() {
#ifdef PECHECK_AVX512_KERNELS
  static const bool supported = fma_kernels() != nullptr && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                                __builtin_cpu_supports("avx512vl");
  return supported ? &avx512_flavour_kernels : nullptr;
#else
  return nullptr;
#endif
}

const fast_kernels& default_fast_kernels() {
  static const fast_kernels& chosen = avx512_kernels() ? *avx512_kernels() : fma_kernels() ? *fma_kernels() : dekker_kernels;
  return chosen;
}

}  // namespace pe
