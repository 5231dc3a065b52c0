// The host backend: the kernel bodies run on the CPU through the host emulation of the grid.
#include "kernels/backend.hpp"
#include "kernels/host_grid.hpp"

namespace pe::kernels {

const char* backend_name() { return "host emulation"; }

std::string run_rotate(const rotate_args& args) {
  run_host_grid(rotate_work_items(args), [&](std::int64_t item) { rotate_item(args, item); });
  return {};
}

}  // namespace pe::kernels
