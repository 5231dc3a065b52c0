// The CUDA backend: the same kernel bodies as the host emulation, launched on the GPU with inputs copied in and outputs copied back.
#include <cuda_runtime.h>
#include <sys/resource.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kernels/backend.hpp"
#include "kernels/cuda_grid.cuh"

namespace pe::kernels {

namespace {

std::string failed(const char* what, cudaError_t e) { return std::string("CUDA ") + what + ": " + cudaGetErrorString(e); }

// The CUDA context, made once per process: when the gate's worker loads the plugin it reads the
// name (pe_impl_name), so the context's host memory is spent before any call's memory budget
// starts counting. Empty when it is usable, else why not.
const std::string& context_problem() {
  static const std::string problem = []() -> std::string {
    const cudaError_t e = cudaFree(nullptr);
    if (e == cudaSuccess) return {};
    std::string why = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    rlimit limit{};
    if (e != cudaErrorNoDevice && e != cudaErrorInsufficientDriver && getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
      why += " (this process's address space is capped at " + std::to_string(limit.rlim_cur >> 30) +
             " GiB by RLIMIT_AS, and a CUDA context reserves address space for the whole GPU: gate a CUDA plugin with"
             " --address-space-gib unlimited)";
    }
    return why;
  }();
  return problem;
}

// A launch's device arrays, freed on every path out; the first failure is kept in `error` (an
// unusable context's from the start), and after it every array is null (the launch is then not
// made).
struct device_arrays {
  std::vector<void*> owned;
  std::string error = context_problem();
  ~device_arrays() {
    for (void* p : owned) cudaFree(p);
  }
  // count elements of T on the device, copied from host when it is not null (an output otherwise).
  template <class T>
  T* put(const T* host, std::size_t count) {
    if (!error.empty() || count == 0) return nullptr;
    void* d = nullptr;
    if (const cudaError_t e = cudaMalloc(&d, count * sizeof(T)); e != cudaSuccess) return error = failed("cudaMalloc", e), nullptr;
    owned.push_back(d);
    if (host != nullptr)
      if (const cudaError_t e = cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice); e != cudaSuccess) return error = failed("copy in", e), nullptr;
    return static_cast<T*>(d);
  }
  // An io array of `elements` values (bytes of the I/O type).
  unsigned char* put_io(const void* host, io_type io, std::int64_t elements) {
    return put(static_cast<const unsigned char*>(host), static_cast<std::size_t>(elements) * io_bytes(io));
  }
};

// Launches dev's kernel over its work items, then copies the output (`bytes` at `device_out`)
// back to `host_out`.
template <class Args>
std::string launch(const device_arrays& d, const Args& dev, void* host_out, const void* device_out, std::size_t bytes) {
  if (!d.error.empty()) return d.error;
  if (const std::int64_t items = work_items(dev); items > 0) {
    if (const cudaError_t e = launch_grid(dev, items); e != cudaSuccess) return failed("launch", e);
    // A fault inside the kernel shows here, named as such, rather than in the copy out.
    if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return failed("kernel", e);
  }
  if (bytes > 0)
    if (const cudaError_t e = cudaMemcpy(host_out, device_out, bytes, cudaMemcpyDeviceToHost); e != cudaSuccess) return failed("copy out", e);
  return {};
}

std::size_t sized(std::int64_t n) { return static_cast<std::size_t>(n); }

}  // namespace

// "CUDA on <the device's name>", made when the plugin loads (so is the context); short, since a
// plugin's name is at most 256 bytes: each call's error says why a device is not usable.
const char* backend_name() {
  static const std::string name = [] {
    if (!context_problem().empty()) return std::string("CUDA, no usable device");
    int device = 0;
    cudaDeviceProp properties{};
    if (cudaGetDevice(&device) != cudaSuccess || cudaGetDeviceProperties(&properties, device) != cudaSuccess) return std::string("CUDA");
    return std::string("CUDA on ") + properties.name;
  }();
  return name.c_str();
}

std::string run_rotate(const rotate_args& host) {
  const std::int64_t elements = host.tokens * host.heads * host.dim, pairs = host.rotary_dim / 2;
  device_arrays d;
  rotate_args dev = host;
  dev.x = d.put_io(host.x, host.io, elements), dev.y = d.put_io(nullptr, host.io, elements);
  dev.pos = d.put(host.pos, sized(host.tokens));
  dev.inv_freq = d.put(host.inv_freq, sized(pairs)), dev.turns = d.put(host.turns, sized(2 * pairs));
  return launch(d, dev, host.y, dev.y, sized(elements) * io_bytes(host.io));
}

std::string run_apply_tables(const tables_args& host) {
  const std::int64_t elements = host.tokens * host.heads * host.dim, entries = host.tokens * (host.rotary_dim / 2);
  device_arrays d;
  tables_args dev = host;
  dev.x = d.put_io(host.x, host.io, elements), dev.y = d.put_io(nullptr, host.io, elements);
  dev.cos = d.put_io(host.cos, host.io, entries), dev.sin = d.put_io(host.sin, host.io, entries);
  return launch(d, dev, host.y, dev.y, sized(elements) * io_bytes(host.io));
}

std::string run_encode(const encode_args& host) {
  const std::int64_t elements = host.tokens * host.dim;
  device_arrays d;
  encode_args dev = host;
  dev.pe = d.put_io(nullptr, host.io, elements), dev.pos = d.put(host.pos, sized(host.tokens));
  dev.slots = d.put(host.slots, sized(2 * host.pairs));
  dev.inv_freq = d.put(host.inv_freq, sized(host.pairs)), dev.turns = d.put(host.turns, sized(2 * host.pairs));
  return launch(d, dev, host.pe, dev.pe, sized(elements) * io_bytes(host.io));
}

std::string run_bias(const alibi_args& host) {
  const std::int64_t elements = host.heads * host.queries * host.keys;
  device_arrays d;
  alibi_args dev = host;
  dev.bias = d.put_io(nullptr, host.io, elements);
  dev.qpos = d.put(host.qpos, sized(host.queries)), dev.kpos = d.put(host.kpos, sized(host.keys));
  dev.slopes = d.put(host.slopes, sized(host.heads));
  return launch(d, dev, host.bias, dev.bias, sized(elements) * io_bytes(host.io));
}

std::string run_bias(const t5_args& host) {
  const std::int64_t elements = host.heads * host.queries * host.keys, steps = host.before_count + host.after_count;
  device_arrays d;
  t5_args dev = host;
  dev.bias = d.put_io(nullptr, host.io, elements);
  dev.qpos = d.put(host.qpos, sized(host.queries)), dev.kpos = d.put(host.kpos, sized(host.keys));
  dev.table = d.put_io(host.table, host.io, host.table_rows * host.heads);
  dev.starts = d.put(host.starts, sized(steps)), dev.buckets = d.put(host.buckets, sized(steps));
  return launch(d, dev, host.bias, dev.bias, sized(elements) * io_bytes(host.io));
}

std::string run_attend(const attend_args& host) {
  const std::int64_t pairs = host.rotary_dim / 2, out_elements = host.queries * host.heads * host.value_dim;
  device_arrays d;
  attend_args dev = host;
  dev.q = d.put_io(host.q, host.io, host.queries * host.heads * host.dim), dev.k = d.put_io(host.k, host.io, host.keys * host.heads * host.dim);
  dev.v = d.put_io(host.v, host.io, host.keys * host.heads * host.value_dim), dev.out = d.put_io(nullptr, host.io, out_elements);
  dev.qpos = d.put(host.qpos, sized(host.queries)), dev.kpos = d.put(host.kpos, sized(host.keys));
  dev.q_inv_freq = d.put(host.q_inv_freq, sized(pairs)), dev.k_inv_freq = d.put(host.k_inv_freq, sized(pairs));
  dev.q_turns = d.put(host.q_turns, sized(2 * pairs)), dev.k_turns = d.put(host.k_turns, sized(2 * pairs));
  return launch(d, dev, host.out, dev.out, sized(out_elements) * io_bytes(host.io));
}

}  // namespace pe::kernels
