// Benchmark: the wall time of one isolated plugin call (a small rotate through the example plugin),
// served by one worker process against a process per call, in one run (scripts/bench-gate).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gate/implementation.hpp"
#include "pe/tensor.hpp"

namespace {

// rotate's tensors for rope(dim=128): x [4, 2, 128] f32, pos [4], y to fill.
struct rotate_call {
  std::vector<pe::gate::io_tensor> inputs, outputs;
  rotate_call() {
    pe::tensor<double> x({4, 2, 128});
    for (std::size_t e = 0; e < x.data.size(); ++e) x.data[e] = std::sin(0.37 * static_cast<double>(e));
    inputs = {pe::gate::real_tensor("x", pe::gate::dtype::f32, x), pe::gate::integer_tensor("pos", {4}, {3, 10, 17, 4096})};
    outputs = {pe::gate::empty_tensor("y", pe::gate::dtype::f32, {4, 2, 128})};
  }
};

void plugin_call(benchmark::State& state, pe::gate::plugin_isolation isolation) {
  const auto impl = pe::gate::load_plugin(PECHECK_EXAMPLE_PLUGIN, 10000, 10000, isolation);
  const rotate_call call;
  const char* spec = "rope(dim=128, base=10000, rotary_dim=128, layout=neox, truncate_low=0)";  // canonical, as the gate sends it
  for (auto _ : state) {
    const auto r = impl->run("rotate", spec, call.inputs, call.outputs);
    if (r.status != pe::gate::call_status::ok) state.SkipWithError(("the example plugin's call failed: " + r.message).c_str());
    benchmark::DoNotOptimize(r.outputs.data());
  }
  state.SetItemsProcessed(state.iterations());
}

void worker_per_call(benchmark::State& state) { plugin_call(state, pe::gate::plugin_isolation::worker); }
void process_per_call(benchmark::State& state) { plugin_call(state, pe::gate::plugin_isolation::call); }

}  // namespace

// Wall time: the work happens in other processes.
BENCHMARK(worker_per_call)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(process_per_call)->UseRealTime()->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
