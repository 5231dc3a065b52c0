// Bandwidth of pecheck's CUDA rotate against a device-to-device copy of the same bytes, both timed in the same run (issue 15's goal; scripts/gpu-check runs it).
//
//   rotate_bandwidth [--spec S] [--heads H] [--tokens T1,T2,...] [--reps N] [--rounds N]
//
// Defaults: rope(dim=128) (neox pairs), H = 32, T = 8192, 16384 and 32768 at positions 0..T-1,
// 20 launches per round, 7 rounds. For each I/O type (f32, f16, bf16), angle mode (fast,
// accurate) and T it prints one line: rotate's GB/s, the copy's, and their ratio, then one line
// saying whether f16 and bf16 reach the goal (rotate >= 85 % of the copy) everywhere.
//
// Bytes moved, counted the same way for both so the ratio compares equal traffic:
// 2 * T*H*D * element bytes, x read once and y written once. rotate also reads pos (8 bytes a
// token) and its tables (a few hundred bytes, cached): under 0.1 % of that at H = 32, D = 128,
// and left out. The copy is cudaMemcpyAsync(y, x, T*H*D * element bytes, device to device).
//
// Exit status: 0 when it measured (PASS or BELOW alike: the goal is a report, not a gate) or
// found no CUDA device; 1 on a CUDA error; 2 on bad arguments.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "kernels/cuda_grid.cuh"
#include "kernels/rotate_bandwidth.hpp"
#include "kernels/rotate_kernel.hpp"

namespace k = pe::kernels;

namespace {

constexpr double goal = 0.85;  // rotate's GB/s over the copy's, at f16 and bf16 (issue 15)

struct options {
  std::string spec = "rope(dim=128)";
  std::int64_t heads = 32;
  std::vector<std::int64_t> tokens{8192, 16384, 32768};
  int reps = 20, rounds = 7;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "rotate_bandwidth: %s\nusage: rotate_bandwidth [--spec S] [--heads H] [--tokens T1,T2,...] [--reps N] [--rounds N]\n", why.c_str());
  std::exit(2);
}

// A positive integer argument, or usage.
std::int64_t positive(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v <= 0) usage(flag + " needs positive integers, not '" + text + "'");
  return v;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) usage(flag + " needs a value");
    const std::string v = argv[++i];
    if (flag == "--spec") o.spec = v;
    else if (flag == "--heads") o.heads = positive(flag, v);
    else if (flag == "--reps") o.reps = static_cast<int>(std::min<std::int64_t>(positive(flag, v), 10000));
    else if (flag == "--rounds") o.rounds = static_cast<int>(std::min<std::int64_t>(positive(flag, v), 1000));
    else if (flag == "--tokens") {
      o.tokens.clear();
      for (std::size_t at = 0; at <= v.size();) {
        const std::size_t comma = std::min(v.find(',', at), v.size());
        o.tokens.push_back(positive(flag, v.substr(at, comma - at)));
        at = comma + 1;
      }
    } else usage("unknown argument " + flag);
  }
  return o;
}

// A CUDA error ends the run with status 1, so scripts/gpu-check reports a broken benchmark as
// such rather than as a slow one.
void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "rotate_bandwidth: CUDA %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

// A device array freed at the end of the run.
struct device_buffer {
  void* p = nullptr;
  explicit device_buffer(std::size_t bytes) { check(cudaMalloc(&p, bytes), "cudaMalloc"); }
  ~device_buffer() { cudaFree(p); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

// x's values: a hash of the index mapped into [-1, 1), so rotate computes on ordinary numbers
// (no zeros, subnormals, infinities or NaNs, which could take other paths than real data).
__global__ void fill(void* x, k::io_type io, std::int64_t n) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u;
    h ^= h >> 15, h *= 0x2c1b3c6du, h ^= h >> 12;
    k::store_io(io, x, i, static_cast<float>(h >> 8) * 0x1p-23f - 1.0f);
  }
}

// Milliseconds per call of `launch`: `reps` calls queued back to back on `stream` between two
// events, so the launch overhead overlaps the previous call's work as it does in a model.
template <class Launch>
double per_call_ms(const Launch& launch, int reps, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop) {
  check(cudaEventRecord(start, stream), "cudaEventRecord");
  for (int r = 0; r < reps; ++r) launch();
  check(cudaEventRecord(stop, stream), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "rotate or copy");  // a fault inside the kernel shows here
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  return static_cast<double>(ms) / reps;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char* name_of(k::io_type io) { return io == k::io_type::f32 ? "f32" : io == k::io_type::f16 ? "f16" : "bf16"; }
const char* name_of(k::angle_mode m) { return m == k::angle_mode::fast ? "fast" : "accurate"; }

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
    std::printf("rotate_bandwidth: no CUDA device (%s): nothing measured\n", e != cudaSuccess ? cudaGetErrorString(e) : "cudaGetDeviceCount found none");
    return 0;
  }
  try {
    const std::int64_t max_tokens = *std::max_element(o.tokens.begin(), o.tokens.end());
    const k::bandwidth_rope first = k::bandwidth_rope_of(o.spec, o.tokens.front());
    const std::int64_t dim = first.dim, pairs = first.rotary_dim / 2;
    // The largest launch must fit one grid (launch_grid's unsigned block count, at most 2^31 - 1
    // blocks in x) and int64 element indices.
    {
      k::rotate_args widest{};
      widest.tokens = max_tokens, widest.heads = o.heads, widest.dim = dim, widest.rotary_dim = first.rotary_dim;
      if (k::blocks_for(k::work_items(widest)) > 0x7fffffff) usage("T*H*D is too large for one launch");
    }
    const std::size_t max_elements = static_cast<std::size_t>(max_tokens * o.heads * dim);

    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    // Sized for the largest T at f32; the narrower types and smaller T use a prefix.
    device_buffer x(max_elements * 4), y(max_elements * 4), pos(static_cast<std::size_t>(max_tokens) * 8);
    device_buffer inv_freq(static_cast<std::size_t>(pairs) * sizeof(float) + 1), turns(static_cast<std::size_t>(pairs) * 16 + 1);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    cudaEvent_t start = nullptr, stop = nullptr;
    check(cudaEventCreate(&start), "cudaEventCreate"), check(cudaEventCreate(&stop), "cudaEventCreate");

    std::printf("rotate bandwidth on %s (sm_%d%d): %s, H=%lld, positions 0..T-1\n", prop.name, prop.major, prop.minor, first.text.c_str(),
                static_cast<long long>(o.heads));
    std::printf("  baseline measured in this run: cudaMemcpyAsync device to device of the same bytes, interleaved with rotate; "
                "GB/s = 2*T*H*D*element bytes (x read + y written, for both) / median time of %d rounds of %d calls\n",
                o.rounds, o.reps);

    double lowest = 1e300;
    std::string lowest_at;
    int below = 0, goal_lines = 0;
    for (const std::int64_t tokens : o.tokens) {
      const k::bandwidth_rope rope = tokens == o.tokens.front() ? first : k::bandwidth_rope_of(o.spec, tokens);
      std::vector<std::int64_t> host_pos(static_cast<std::size_t>(tokens));
      for (std::int64_t t = 0; t < tokens; ++t) host_pos[static_cast<std::size_t>(t)] = t;
      // Inputs go to the device before any timing: nothing crosses PCIe inside a timed region. On
      // the benchmark's stream, and waited for, because a plain cudaMemcpy from pageable memory may
      // return before its DMA lands, and the non-blocking stream would not wait for it.
      check(cudaMemcpyAsync(pos.p, host_pos.data(), host_pos.size() * 8, cudaMemcpyHostToDevice, stream), "copy pos in");
      check(cudaMemcpyAsync(inv_freq.p, rope.inv_freq.data(), rope.inv_freq.size() * sizeof(float), cudaMemcpyHostToDevice, stream), "copy inv_freq in");
      check(cudaMemcpyAsync(turns.p, rope.turns.data(), rope.turns.size() * 8, cudaMemcpyHostToDevice, stream), "copy turns in");
      check(cudaStreamSynchronize(stream), "copy in");
      const std::int64_t elements = tokens * o.heads * dim;
      for (const k::io_type io : {k::io_type::f32, k::io_type::f16, k::io_type::bf16}) {
        const std::size_t bytes = static_cast<std::size_t>(elements) * k::io_bytes(io);
        fill<<<1024, k::block_threads, 0, stream>>>(x.p, io, elements);
        check(cudaGetLastError(), "fill launch");
        for (const k::angle_mode mode : {k::angle_mode::fast, k::angle_mode::accurate}) {
          k::rotate_args a{};
          a.x = x.p, a.y = y.p, a.pos = static_cast<const std::int64_t*>(pos.p);
          a.inv_freq = static_cast<const float*>(inv_freq.p), a.turns = static_cast<const std::uint64_t*>(turns.p);
          a.factor = rope.factor, a.tokens = tokens, a.heads = o.heads, a.dim = dim, a.rotary_dim = rope.rotary_dim;
          a.neox = rope.neox, a.io = io, a.mode = mode;
          const std::int64_t items = k::work_items(a);
          const auto rotate = [&] { check(k::launch_grid(a, items, stream), "rotate launch"); };
          const auto copy = [&] { check(cudaMemcpyAsync(y.p, x.p, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync"); };
          // Warm-up: clocks up, the kernel loaded, the tables in cache.
          (void)per_call_ms(rotate, 3, stream, start, stop);
          (void)per_call_ms(copy, 3, stream, start, stop);
          std::vector<double> rotate_ms, copy_ms;
          for (int r = 0; r < o.rounds; ++r) {
            // Alternating which goes first keeps a drift in clocks or temperature from favouring one.
            if (r % 2 == 0) copy_ms.push_back(per_call_ms(copy, o.reps, stream, start, stop));
            rotate_ms.push_back(per_call_ms(rotate, o.reps, stream, start, stop));
            if (r % 2 == 1) copy_ms.push_back(per_call_ms(copy, o.reps, stream, start, stop));
          }
          const double moved = 2.0 * static_cast<double>(bytes);
          const double rotate_gbs = moved / (median(rotate_ms) * 1e-3) * 1e-9, copy_gbs = moved / (median(copy_ms) * 1e-3) * 1e-9;
          const double ratio = rotate_gbs / copy_gbs;
          const std::string at = std::string(name_of(io)) + " " + name_of(mode) + " T=" + std::to_string(tokens);
          const char* verdict = "(no goal at f32)";
          if (io != k::io_type::f32) {
            ++goal_lines;
            verdict = ratio >= goal ? "PASS" : "BELOW";
            if (ratio < goal) ++below;
            if (ratio < lowest) lowest = ratio, lowest_at = at;
          }
          std::printf("  %-4s %-8s T=%lld H=%lld D=%lld: rotate %7.1f GB/s, copy %7.1f GB/s, rotate/copy %.3f %s\n", name_of(io), name_of(mode),
                      static_cast<long long>(tokens), static_cast<long long>(o.heads), static_cast<long long>(dim), rotate_gbs, copy_gbs, ratio,
                      verdict);
          std::fflush(stdout);  // each line as it is measured, should a later one fail
        }
      }
    }
    if (below == 0)
      std::printf("rotate bandwidth goal (f16 and bf16 rotate >= %.0f %% of the copy, every T and mode): PASS, lowest %.3f (%s)\n", goal * 100, lowest,
                  lowest_at.c_str());
    else
      std::printf("rotate bandwidth goal (f16 and bf16 rotate >= %.0f %% of the copy, every T and mode): BELOW at %d of %d, lowest %.3f (%s)\n",
                  goal * 100, below, goal_lines, lowest, lowest_at.c_str());
    cudaEventDestroy(start), cudaEventDestroy(stop), cudaStreamDestroy(stream);
  } catch (const std::exception& e) {
    usage(e.what());  // the spec: malformed, or not rope
  }
  return 0;
}
