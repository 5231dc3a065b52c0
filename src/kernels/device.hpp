// What the kernel bodies need from the machine, the same on the GPU (nvcc) and on the host (any C++ compiler).
#pragma once
#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define PE_HD __host__ __device__
#else
#define PE_HD
#endif

namespace pe::kernels {

// The high 64 bits of a * b.
PE_HD inline std::uint64_t mul_high(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

// sin and cos in binary32 for the fast angle mode: the SFU's __sincosf on the GPU, the C
// library's on the host (host emulation is the accurate one of the two; proofs/precision.kernel_rotate.md).
PE_HD inline void fast_sin_cos(float angle, float* s, float* c) {
#if defined(__CUDA_ARCH__)
  __sincosf(angle, s, c);
#else
  *s = std::sin(angle);
  *c = std::cos(angle);
#endif
}

// sin and cos in binary64 for the accurate angle mode (CUDA's sincos, within 2 ulps of binary64;
// glibc's on the host).
PE_HD inline void sin_cos(double angle, double* s, double* c) {
#if defined(__CUDA_ARCH__)
  ::sincos(angle, s, c);
#else
  *s = std::sin(angle);
  *c = std::cos(angle);
#endif
}

// e^x in binary32 for attend's softmax: CUDA's expf (within 2 ulps) on the GPU, the C library's on
// the host. The gate's attend bound allows u_w for exp and C u_w more, which covers expf's second
// ulp (proofs/precision.kernel_rotate.md, "attend").
PE_HD inline float exp_f(float x) {
#if defined(__CUDA_ARCH__)
  return ::expf(x);
#else
  return std::exp(x);
#endif
}

}  // namespace pe::kernels
