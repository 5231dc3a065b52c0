// The kernels' I/O element types (f32, f16, bf16) and the loads and stores that widen them to, and round them from, binary32.
#pragma once
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "kernels/device.hpp"
#include "kernels/half_bits.hpp"

namespace pe::kernels {

enum class io_type : std::int32_t { f32 = 0, f16 = 1, bf16 = 2 };

// Bytes of one element of io.
PE_HD inline std::size_t io_bytes(io_type io) { return io == io_type::f32 ? 4 : 2; }

// The 16-bit conversions: half_bits.hpp's bit arithmetic on the host; on the GPU the hardware's,
// one cvt instruction each (round to nearest even, PTX ISA), where the bit arithmetic costs tens
// of instructions and branches per element. Measured on rotate's kernel specialised to the fast
// mode and neox pairs (nvcc 13.0 -O3, sm_90, size of its SASS): f16 416 -> 280 instructions,
// bf16 296 -> 280, f32 272. Both give the same value for every non-NaN input: half_bits_test.cpp
// holds the bit arithmetic to pecheck's fp16 and bf16, and cuda_plugin_test.cpp the device to the
// same words on every 16-bit input. A NaN stays a NaN (on the GPU with the hardware's payload).
PE_HD inline float widen_f16(std::uint16_t h) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(h));
#else
  return f16_to_float(h);
#endif
}
PE_HD inline std::uint16_t narrow_f16(float v) {
#if defined(__CUDA_ARCH__)
  return __half_as_ushort(__float2half_rn(v));
#else
  return float_to_f16(v);
#endif
}
PE_HD inline std::uint16_t narrow_bf16(float v) {
#if defined(__CUDA_ARCH__)
  return __bfloat16_as_ushort(__float2bfloat16_rn(v));
#else
  return float_to_bf16(v);
#endif
}

// Element i of an io array, widened exactly to binary32 (bf16 by a shift on both: no cvt needed).
PE_HD inline float load_io(io_type io, const void* data, std::int64_t i) {
  switch (io) {
    case io_type::f16: return widen_f16(static_cast<const std::uint16_t*>(data)[i]);
    case io_type::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    default: return static_cast<const float*>(data)[i];
  }
}

// v stored as element i of an io array (rounded to nearest even for f16 and bf16).
PE_HD inline void store_io(io_type io, void* data, std::int64_t i, float v) {
  switch (io) {
    case io_type::f16: static_cast<std::uint16_t*>(data)[i] = narrow_f16(v); break;
    case io_type::bf16: static_cast<std::uint16_t*>(data)[i] = narrow_bf16(v); break;
    default: static_cast<float*>(data)[i] = v;
  }
}

}  // namespace pe::kernels
