// The launch geometry the CUDA kernels use, and its host emulation: every (block, thread) of the grid run in turn on the CPU.
#pragma once
#include <cstdint>

#include "kernels/device.hpp"

namespace pe::kernels {

// Threads per block of every launch.
inline constexpr int block_threads = 256;

PE_HD inline std::int64_t blocks_for(std::int64_t items) { return (items + block_threads - 1) / block_threads; }

// The work item a thread takes: one per thread, block after block (its bounds check is the caller's).
PE_HD inline std::int64_t item_of(std::int64_t block, std::int64_t thread) { return block * block_threads + thread; }

// Runs body(item) for every item < items in the order of blocks and threads, with the same
// index arithmetic and bounds check as the device launch.
template <class Body>
void run_host_grid(std::int64_t items, const Body& body) {
  for (std::int64_t block = 0; block < blocks_for(items); ++block)
    for (std::int64_t thread = 0; thread < block_threads; ++thread)
      if (const std::int64_t item = item_of(block, thread); item < items) body(item);
}

// One launch of a kernel on the host: every work item of args (work_items and run_item, the
// overloads each kernel header gives its args) through the emulated grid.
template <class Args>
void run_on_host(const Args& args) {
  run_host_grid(work_items(args), [&](std::int64_t item) { run_item(args, item); });
}

}  // namespace pe::kernels
