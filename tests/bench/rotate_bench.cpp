// Benchmark: pecheck's binary64 rotate and encode (exact) against plain binary64 RoPE and the sin+cos it needs, in one run.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "pe/ops.hpp"
#include "pe/parallel.hpp"
#include "pe/spec.hpp"

namespace {

constexpr std::int64_t dim = 128, tokens = 4096;

pe::op_inputs inputs(std::int64_t heads) {
  pe::op_inputs in;
  for (std::int64_t t = 0; t < tokens; ++t) in.pos.push_back(t * 7 + 3);  // positions up to ~2^15
  in.x = pe::tensor<double>({tokens, heads, dim});
  for (std::size_t e = 0; e < in.x.data.size(); ++e) in.x.data[e] = std::sin(0.37 * static_cast<double>(e)) * 0.8;
  return in;
}

// pecheck's reference: run_op<double>("rotate") on rope(dim=128), each output correctly rounded.
void pecheck_rotate(benchmark::State& state) {
  const auto heads = state.range(0);
  const pe::spec s = pe::parse_spec("rope(dim=128)");
  const auto in = inputs(heads);
  for (auto _ : state) benchmark::DoNotOptimize(pe::run_op<double>("rotate", s, in));
  state.SetItemsProcessed(state.iterations() * tokens * heads * dim);
}

// pecheck's binary64 sinusoidal encode (dim 128, the same positions), values per second.
void pecheck_encode(benchmark::State& state) {
  const pe::spec s = pe::parse_spec("sinusoidal(dim=128)");
  pe::op_inputs in;
  for (std::int64_t t = 0; t < tokens; ++t) in.pos.push_back(t * 7 + 3);
  for (auto _ : state) benchmark::DoNotOptimize(pe::run_op<double>("encode", s, in));
  state.SetItemsProcessed(state.iterations() * tokens * dim);
}

// What NumPy's float64 RoPE does, in C++: angles p * w in binary64 (not exact at large p), libm
// sin and cos once per (token, pair), then the products: the speed of a plain, inexact kernel.
void plain_double_rotate(benchmark::State& state) {
  const auto heads = state.range(0);
  const auto in = inputs(heads);
  std::vector<double> w(dim / 2), y(in.x.data.size());
  for (std::int64_t i = 0; i < dim / 2; ++i) w[static_cast<std::size_t>(i)] = std::pow(10000.0, -2.0 * static_cast<double>(i) / dim);
  for (auto _ : state) {
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t i = 0; i < dim / 2; ++i) {
        const double angle = static_cast<double>(in.pos[static_cast<std::size_t>(t)]) * w[static_cast<std::size_t>(i)];
        const double s = std::sin(angle), c = std::cos(angle);
        for (std::int64_t h = 0; h < heads; ++h) {
          const auto a = static_cast<std::size_t>((t * heads + h) * dim + i), b = a + dim / 2;
          y[a] = c * in.x.data[a] - s * in.x.data[b];
          y[b] = s * in.x.data[a] + c * in.x.data[b];
        }
      }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * tokens * heads * dim);
}

// The floor under any rotate: one binary64 sin and cos per (token, pair), nothing else.
void sin_cos_only(benchmark::State& state) {
  const auto heads = state.range(0);
  std::vector<double> angles(static_cast<std::size_t>(tokens * dim / 2));
  for (std::size_t k = 0; k < angles.size(); ++k) angles[k] = 0.001 * static_cast<double>(k);
  for (auto _ : state) {
    double acc = 0;
    for (const double a : angles) acc += std::sin(a) + std::cos(a);
    benchmark::DoNotOptimize(acc);
  }
  state.SetItemsProcessed(state.iterations() * tokens * heads * dim);
}

}  // namespace

// Per core: the library's paths run on one thread here (the goals are per core), and the CPU time
// is the process's, so a thread would be counted anyway.
[[maybe_unused]] const bool one_thread = [] {
  pe::set_worker_threads(1);
  return true;
}();
BENCHMARK(pecheck_rotate)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(pecheck_encode)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(plain_double_rotate)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK(sin_cos_only)->Arg(1)->Arg(8)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
