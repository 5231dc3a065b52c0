// GPU tests (label gpu) of libpecheck_cuda.so, called through its plugin ABI: the accurate rotate within its per-element bound on the device, its 16-bit loads and stores on every word, and a launch of over 2^32 work items and elements; skipped, saying why, where no CUDA device is found.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "kernels/every_word_launch.hpp"
#include "kernels/rotate_launch.hpp"
#include "pecheck/impl.h"

namespace {

using pe::kernels::angle_mode;
using pe::kernels::testing::check_accurate_bound;
using pe::kernels::testing::rotate_launch;

// Why the device tests cannot run here, or empty when a CUDA device is there.
std::string no_device() {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) return std::string("no CUDA device: ") + cudaGetErrorString(e);
  return count == 0 ? "no CUDA device: cudaGetDeviceCount found none" : "";
}

#define SKIP_WITHOUT_A_DEVICE()                                            \
  if (const std::string why = no_device(); !why.empty()) GTEST_SKIP() << why << " (this test needs a GPU)"

// libpecheck_cuda.so, loaded once: PECHECK_CUDA_PLUGIN names it, else the build's own.
using run_fn = decltype(&pe_impl_run);
run_fn cuda_plugin() {
  static run_fn run = [] {
    const char* env = std::getenv("PECHECK_CUDA_PLUGIN");
    const std::string path = env != nullptr ? env : PECHECK_CUDA_PLUGIN_PATH;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error("cannot load " + path + ": " + dlerror());
    return reinterpret_cast<run_fn>(dlsym(handle, "pe_impl_run"));
  }();
  return run;
}

// rotate through the plugin: x [T, H, D] of dtype and pos [T] into y (already sized). Returns the
// plugin's message on an error, or empty.
std::string plugin_rotate(const std::string& spec, std::int32_t dtype, std::int64_t tokens, std::int64_t heads, std::int64_t dim,
                          const void* x, const std::int64_t* pos, void* y) {
  const std::int64_t shape[] = {tokens, heads, dim}, pos_shape[] = {tokens};
  const pe_tensor inputs[] = {{"x", dtype, 3, shape, const_cast<void*>(x)}, {"pos", PE_I64, 1, pos_shape, const_cast<std::int64_t*>(pos)}};
  pe_tensor outputs[] = {{"y", dtype, 3, shape, y}};
  char message[512] = "";
  const std::int32_t status = cuda_plugin()("rotate", pe::parse_spec(spec).text().c_str(), inputs, 2, outputs, 1, message, sizeof message);
  return status == PE_OK ? "" : fmt::format("status {}: {}", status, message);
}

// The same statement the host emulation meets (rotate_kernel_test.cpp): on the GPU, sin and cos
// are CUDA's (within 2 binary64 ulps, which the proof allows for) and nvcc may fuse the binary64
// products and sums, which only removes roundings. 17 heads: two whole groups of the 8 that one
// work item turns and a partial third (rotate_kernel.hpp).
TEST(cuda_plugin, accurate_rotate_is_within_its_bound_on_the_device) {
  SKIP_WITHOUT_A_DEVICE();
  unsetenv("PECHECK_KERNEL_ANGLES");  // the accurate mode
  for (const char* spec : {"rope(dim=64, layout=neox)", "rope(dim=64, layout=gptj)", "rope(dim=48, rotary_dim=16)",
                           "rope(dim=32, scaling=yarn(factor=8, original_max=2048))",
                           "rope(dim=128, base=500000, scaling=llama3(factor=8, original_max=8192))"}) {
    rotate_launch l(spec, 512, 17, std::int64_t{1} << 40, angle_mode::accurate, 11);
    std::vector<float> y(l.x.size(), NAN);
    ASSERT_EQ(plugin_rotate(spec, PE_F32, l.args.tokens, l.args.heads, l.args.dim, l.x.data(), l.pos.data(), y.data()), "") << spec;
    check_accurate_bound(l, y, "CUDA");
  }
}

// The device's f16 and bf16 loads and stores (the hardware's cvt, storage.hpp) on every 16-bit
// word: the words pecheck's fp16 and bf16 give, as the host emulation's bit arithmetic does
// (rotate_kernel_test.cpp runs the same check there).
TEST(cuda_plugin, sixteen_bit_io_loads_and_rounds_every_word_on_the_device) {
  SKIP_WITHOUT_A_DEVICE();
  unsetenv("PECHECK_KERNEL_ANGLES");
  for (const auto& [io, dtype] : {std::pair{pe::kernels::io_type::f16, PE_F16}, std::pair{pe::kernels::io_type::bf16, PE_BF16}}) {
    pe::kernels::testing::every_word_launch l(io);
    ASSERT_EQ(plugin_rotate(l.spec, dtype, l.tokens, l.heads, l.dim, l.x.data(), l.pos.data(), l.y.data()), "");
    l.check(l.y, "CUDA");
  }
}

// Over 2^32 work items and 2^32 elements in one launch (rope(dim=256, rotary_dim=2): one rotated
// pair and 254 passed-through dims a token, each a work item; 2^24 + 2^17 + 5 tokens of one head,
// f16 I/O: 8.1 GiB each way): every element is written, and each sampled token's output is bit for bit
// the output of a launch of that token alone (a token's result cannot depend on where it sits in
// the grid; the small launches are what the bound test checks). Catches 32-bit index arithmetic
// anywhere between the plugin and the kernel, in the work item's number and in the element's.
TEST(cuda_plugin, a_launch_past_2_to_the_32_work_items_writes_every_element_right) {
  SKIP_WITHOUT_A_DEVICE();
  unsetenv("PECHECK_KERNEL_ANGLES");
  const char* spec = "rope(dim=256, rotary_dim=2)";
  const std::int64_t tokens = (std::int64_t{1} << 24) + (std::int64_t{1} << 17) + 5, heads = 1, dim = 256, row = heads * dim, elements = tokens * row;
  ASSERT_GT(tokens * (1 + dim - 2), std::int64_t{1} << 32);  // work items (rotate_kernel.hpp)
  ASSERT_GT(elements, std::int64_t{1} << 32);
  const auto bytes = static_cast<std::size_t>(elements) * 2;
  std::size_t device_free = 0, device_total = 0;
  ASSERT_EQ(cudaMemGetInfo(&device_free, &device_total), cudaSuccess);
  const auto host_bytes = static_cast<std::size_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::size_t>(sysconf(_SC_PAGE_SIZE));
  if (device_free < 2 * bytes + (std::size_t{1} << 30) || host_bytes < 3 * bytes)
    GTEST_SKIP() << "needs " << 2 * bytes / (1 << 20) << " MiB free on the device and 1.5 times that on the host: "
                 << device_free / (1 << 20) << " and " << host_bytes / (1 << 20) << " MiB here";
  // x: one random block of finite f16 values (|x| < 2), tiled; y: every bit set (NaN), so an
  // element no work item writes stays NaN.
  std::vector<std::uint16_t> x(static_cast<std::size_t>(elements)), y(static_cast<std::size_t>(elements), 0xffff);
  std::mt19937 rng(5);
  const std::size_t block = std::size_t{1} << 20;
  for (std::size_t e = 0; e < block; ++e) x[e] = static_cast<std::uint16_t>(rng() & 0xbfff);  // exponent below 2^1: finite
  for (std::size_t done = block; done < x.size(); done += std::min(done, x.size() - done))
    std::memcpy(x.data() + done, x.data(), std::min(done, x.size() - done) * 2);
  std::vector<std::int64_t> pos(static_cast<std::size_t>(tokens));
  for (std::int64_t t = 0; t < tokens; ++t) pos[static_cast<std::size_t>(t)] = t;
  ASSERT_EQ(plugin_rotate(spec, PE_F16, tokens, heads, dim, x.data(), pos.data(), y.data()), "");
  std::int64_t unwritten = 0;
  for (const std::uint16_t v : y) unwritten += v == 0xffff;
  EXPECT_EQ(unwritten, 0) << "elements left unwritten of " << elements;
  // Tokens at the start, around element 2^31 (token 2^23), item 2^31 (token 2^31 / 255), element
  // 2^32 (token 2^24), item 2^32 (token 2^32 / 255), at the end, and drawn.
  std::vector<std::int64_t> sampled = {0, 1, (std::int64_t{1} << 23) - 1, std::int64_t{1} << 23, (std::int64_t{1} << 31) / 255,
                                       (std::int64_t{1} << 31) / 255 + 1, (std::int64_t{1} << 24) - 1, std::int64_t{1} << 24,
                                       (std::int64_t{1} << 32) / 255, (std::int64_t{1} << 32) / 255 + 1, tokens - 2, tokens - 1};
  for (int k = 0; k < 64; ++k) sampled.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(tokens)));
  std::vector<std::uint16_t> xs, ys;
  std::vector<std::int64_t> ps;
  for (const std::int64_t t : sampled) {
    const auto at = static_cast<std::size_t>(t * row);
    xs.insert(xs.end(), x.begin() + static_cast<std::ptrdiff_t>(at), x.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(row)));
    ps.push_back(t);
  }
  ys.assign(xs.size(), 0xffff);
  ASSERT_EQ(plugin_rotate(spec, PE_F16, static_cast<std::int64_t>(ps.size()), heads, dim, xs.data(), ps.data(), ys.data()), "");
  for (std::size_t k = 0; k < sampled.size(); ++k)
    for (std::int64_t e = 0; e < row; ++e)
      ASSERT_EQ(y[static_cast<std::size_t>(sampled[k] * row + e)], ys[k * static_cast<std::size_t>(row) + static_cast<std::size_t>(e)])
          << "token " << sampled[k] << ", element " << e << " of its row";
}

}  // namespace
