// The host backend: the kernel bodies run on the CPU through the host emulation of the grid.
#include "kernels/backend.hpp"
#include "kernels/host_grid.hpp"

namespace pe::kernels {

const char* backend_name() { return "host emulation"; }

std::string run_rotate(const rotate_args& args) { run_on_host(args); return {}; }
std::string run_apply_tables(const tables_args& args) { run_on_host(args); return {}; }
std::string run_encode(const encode_args& args) { run_on_host(args); return {}; }
std::string run_bias(const alibi_args& args) { run_on_host(args); return {}; }
std::string run_bias(const t5_args& args) { run_on_host(args); return {}; }
std::string run_attend(const attend_args& args) { run_on_host(args); return {}; }

}  // namespace pe::kernels
