// The fast binary64 kernels with FMA and AVX-512 (eight lanes): this file alone is compiled for AVX-512, and used only where the CPU has it.
//
// The same code and the same operations as fast_kernels_fma.cpp, so the same bits: only the
// vector width differs. What that file says of linkage holds here too: everything it uses has
// internal linkage, and fast_kernels.cpp hands these kernels out only where the CPU supports
// AVX-512 F, DQ and VL, FMA and AVX2.
#if !defined(__FMA__) || !defined(__AVX2__) || !defined(__AVX512F__) || !defined(__AVX512DQ__) || !defined(__AVX512VL__)
#error "fast_kernels_avx512.cpp is compiled with -mfma -mavx2 -mavx512f -mavx512dq -mavx512vl (src/CMakeLists.txt)"
#endif
#include "pe/fast_kernels_body.hpp"

namespace pe {

extern const fast_kernels avx512_flavour_kernels;
const fast_kernels avx512_flavour_kernels = kernels_of_this_flavour("avx512");

}  // namespace pe
