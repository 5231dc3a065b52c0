// The kernels' I/O element types (f32, f16, bf16) and the loads and stores that widen them to, and round them from, binary32.
#pragma once
#include <cstddef>
#include <cstdint>

#include "kernels/device.hpp"
#include "kernels/half_bits.hpp"

namespace pe::kernels {

enum class io_type : std::int32_t { f32 = 0, f16 = 1, bf16 = 2 };

// Bytes of one element of io.
PE_HD inline std::size_t io_bytes(io_type io) { return io == io_type::f32 ? 4 : 2; }

// Element i of an io array, widened exactly to binary32.
PE_HD inline float load_io(io_type io, const void* data, std::int64_t i) {
  switch (io) {
    case io_type::f16: return f16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case io_type::bf16: return bf16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    default: return static_cast<const float*>(data)[i];
  }
}

// v stored as element i of an io array (rounded to nearest even for f16 and bf16).
PE_HD inline void store_io(io_type io, void* data, std::int64_t i, float v) {
  switch (io) {
    case io_type::f16: static_cast<std::uint16_t*>(data)[i] = float_to_f16(v); break;
    case io_type::bf16: static_cast<std::uint16_t*>(data)[i] = float_to_bf16(v); break;
    default: static_cast<float*>(data)[i] = v;
  }
}

}  // namespace pe::kernels
