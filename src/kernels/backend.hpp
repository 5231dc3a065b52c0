// Where a launch runs: the host emulation (host_backend.cpp) or the GPU (cuda_backend.cu); the plugin links one of them.
#pragma once
#include <cstddef>
#include <string>

#include "kernels/rotate_kernel.hpp"

namespace pe::kernels {

// What the backend says it is, for pe_impl_name ("host emulation", "CUDA").
const char* backend_name();

// Runs rotate over host arrays (args' pointers are host memory; sizes from args); returns an
// error message, or an empty string on success.
std::string run_rotate(const rotate_args& args);

// Bytes of one element of io.
inline std::size_t io_bytes(io_type io) { return io == io_type::f32 ? 4 : 2; }

}  // namespace pe::kernels
