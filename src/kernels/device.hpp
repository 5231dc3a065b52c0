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

// A loop the GPU compiler unrolls fully (a register array indexed by the loop's counter stays in
// registers only then); the host compiler decides for itself.
#if defined(__CUDA_ARCH__)
#define PE_UNROLL _Pragma("unroll")
#else
#define PE_UNROLL
#endif

// q = n / d and r = n % d for n >= 0 and d > 0, in 32-bit arithmetic where both fit: on the GPU a
// 64-bit division is a software routine of tens of instructions, a 32-bit one a handful.
PE_HD inline void divide(std::int64_t n, std::int64_t d, std::int64_t* q, std::int64_t* r) {
  if (static_cast<std::uint64_t>(n) <= 0xffffffffu && static_cast<std::uint64_t>(d) <= 0xffffffffu) {
    const auto n32 = static_cast<std::uint32_t>(n), d32 = static_cast<std::uint32_t>(d);
    *q = n32 / d32, *r = n32 % d32;
  } else {
    *q = n / d, *r = n % d;
  }
}

// __sincosf's documented worst absolute error on [-pi, pi], 2^-21.41 (CUDA C++ Programming Guide,
// "Intrinsic Functions"), rounded up: 0x1.816p-22 = 3.5891e-7 > 3.58879e-7.
inline constexpr float sincosf_documented_error = 0x1.816p-22f;

// sin and cos in binary32 for the fast angle mode: the SFU's __sincosf on the GPU, the C
// library's on the host (host emulation is the accurate one of the two; proofs/precision.kernel_rotate.md).
// A zero angle (p = 0, or a frequency of 0: p-RoPE's truncated pairs) gives sin = +-0 and cos = 1
// exactly, as every C library does; __sincosf's documented bound does not promise that, and the
// standard tolerance allows no angle error where the frequency is 0.
// PE_KERNELS_SINCOSF_MODEL (libpecheck_kernels_sincosf_model.so, a test build only) models the GPU
// on the host at its documented worst: the C library's values moved by that error, cos up and
// sin down, which moves y_a = c x_a - s x_b by the whole error times |x_a| + |x_b| wherever x_a
// and x_b share a sign (y_b where they do not).
PE_HD inline void fast_sin_cos(float angle, float* s, float* c) {
  if (angle == 0) {
    *s = angle, *c = 1;
    return;
  }
#if defined(__CUDA_ARCH__)
  __sincosf(angle, s, c);
#elif defined(PE_KERNELS_SINCOSF_MODEL)
  *s = std::sin(angle) - sincosf_documented_error;
  *c = std::cos(angle) + sincosf_documented_error;
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
