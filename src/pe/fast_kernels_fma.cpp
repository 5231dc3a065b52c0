// The fast binary64 kernels with hardware FMA: this file alone is compiled with -mfma -mavx2, and used only where the CPU has both.
//
// Code compiled for FMA must never run on a CPU without it. So this file defines everything it
// uses with internal linkage (fast_kernels_body.hpp, double_double.hpp, dd.hpp) and includes no
// header whose inline functions or templates it would instantiate: an instantiation here would be
// a shared (COMDAT) definition, and the linker could pick this file's FMA-encoded copy for every
// caller. fast_kernels.cpp hands these kernels out only where the CPU supports FMA and AVX2.
#if !defined(__FMA__) || !defined(__AVX2__)
#error "fast_kernels_fma.cpp is compiled with -mfma -mavx2 (src/CMakeLists.txt)"
#endif
#include "pe/fast_kernels_body.hpp"

namespace pe {

extern const fast_kernels fma_flavour_kernels;
const fast_kernels fma_flavour_kernels = kernels_of_this_flavour("fma");

}  // namespace pe
