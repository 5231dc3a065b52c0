// The CUDA backend: the same kernel bodies as the host emulation, launched on the GPU with inputs copied in and outputs copied back.
#include <cuda_runtime.h>

#include <string>

#include "kernels/backend.hpp"
#include "kernels/host_grid.hpp"

namespace pe::kernels {

namespace {

__global__ void rotate_global(rotate_args args, std::int64_t items) {
  const std::int64_t item = item_of(blockIdx.x, threadIdx.x);
  if (item < items) rotate_item(args, item);
}

// Device buffers freed on every path out.
struct device_buffers {
  void* at[5] = {};
  ~device_buffers() {
    for (void* p : at) cudaFree(p);
  }
};

std::string failed(const char* what, cudaError_t e) { return std::string("CUDA ") + what + ": " + cudaGetErrorString(e); }

}  // namespace

const char* backend_name() { return "CUDA"; }

std::string run_rotate(const rotate_args& host) {
  const std::int64_t items = rotate_work_items(host), pairs = host.rotary_dim / 2;
  const std::size_t x_bytes = static_cast<std::size_t>(host.tokens * host.heads * host.dim) * io_bytes(host.io);
  const std::size_t sizes[5] = {x_bytes, x_bytes, static_cast<std::size_t>(host.tokens) * sizeof(std::int64_t),
                                static_cast<std::size_t>(pairs) * sizeof(float), static_cast<std::size_t>(2 * pairs) * sizeof(std::uint64_t)};
  const void* sources[5] = {host.x, nullptr, host.pos, host.inv_freq, host.turns};
  device_buffers d;
  for (int i = 0; i < 5; ++i) {
    if (sizes[i] == 0) continue;
    if (const cudaError_t e = cudaMalloc(&d.at[i], sizes[i]); e != cudaSuccess) return failed("cudaMalloc", e);
    if (sources[i] != nullptr)
      if (const cudaError_t e = cudaMemcpy(d.at[i], sources[i], sizes[i], cudaMemcpyHostToDevice); e != cudaSuccess) return failed("copy in", e);
  }
  rotate_args dev = host;
  dev.x = d.at[0], dev.y = d.at[1], dev.pos = static_cast<const std::int64_t*>(d.at[2]);
  dev.inv_freq = static_cast<const float*>(d.at[3]), dev.turns = static_cast<const std::uint64_t*>(d.at[4]);
  if (items > 0) {
    rotate_global<<<static_cast<unsigned>(blocks_for(items)), block_threads>>>(dev, items);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return failed("launch", e);
    // A fault inside the kernel shows here, named as such, rather than in the copy out.
    if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return failed("kernel", e);
  }
  if (const cudaError_t e = cudaMemcpy(host.y, d.at[1], x_bytes, cudaMemcpyDeviceToHost); e != cudaSuccess) return failed("copy out", e);
  return {};
}

}  // namespace pe::kernels
