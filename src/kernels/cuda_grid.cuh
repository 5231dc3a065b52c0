// The CUDA grid every kernel body is launched on, shared by the backend (cuda_backend.cu) and the bandwidth benchmark (rotate_bandwidth.cu) so the benchmark times the launch the gate checks.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/host_grid.hpp"

namespace pe::kernels {

// Every kernel: one thread per work item, the body chosen by the args' type (run_item's overloads).
template <class Args>
__global__ void grid_global(Args args, std::int64_t items) {
  const std::int64_t item = item_of(blockIdx.x, threadIdx.x);
  if (item < items) run_item(args, item);
}

// Launches args' kernel over `items` work items (work_items(args), > 0) on `stream`, in the
// geometry host_grid.hpp emulates. Returns the launch's error only: the kernel runs asynchronously,
// so a fault inside it shows at the next synchronisation.
template <class Args>
cudaError_t launch_grid(const Args& args, std::int64_t items, cudaStream_t stream = nullptr) {
  grid_global<<<static_cast<unsigned>(blocks_for(items)), block_threads, 0, stream>>>(args, items);
  return cudaGetLastError();
}

}  // namespace pe::kernels
