// Where a launch runs: the host emulation (host_backend.cpp) or the GPU (cuda_backend.cu); the plugin links one of them.
#pragma once
#include <string>

#include "kernels/attend_kernel.hpp"
#include "kernels/bias_kernel.hpp"
#include "kernels/encode_kernel.hpp"
#include "kernels/rotate_kernel.hpp"
#include "kernels/tables_kernel.hpp"

namespace pe::kernels {

// What the backend says it is, for pe_impl_name ("host emulation", "CUDA").
const char* backend_name();

// Each runs its kernel over host arrays (args' pointers are host memory; sizes from args) and
// returns an error message, or an empty string on success.
std::string run_rotate(const rotate_args& args);
std::string run_apply_tables(const tables_args& args);
std::string run_encode(const encode_args& args);
std::string run_bias(const alibi_args& args);
std::string run_bias(const t5_args& args);
std::string run_attend(const attend_args& args);

}  // namespace pe::kernels
