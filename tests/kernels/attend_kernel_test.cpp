// Tests for src/kernels/attend_kernel.hpp through the host emulation of the grid: every output against pecheck's reference within the gate's own attend bound, at f32, bf16 and fp16, in both angle modes.
#include "kernels/attend_kernel.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <vector>

#include "gate/tolerance.hpp"
#include "kernels/host_grid.hpp"
#include "kernels/host_tables.hpp"
#include "kernels/kernel_test_support.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace {

using pe::kernels::angle_mode;
using pe::kernels::io_type;
using pe::kernels::testing::io_buffer;

pe::gate::dtype gate_dtype(io_type io) {
  return io == io_type::f32 ? pe::gate::dtype::f32 : io == io_type::bf16 ? pe::gate::dtype::bf16 : pe::gate::dtype::f16;
}

// One attend launch over random inputs in io (values in [-2, 2], positions below max_pos, keys
// at their own positions), and the largest |out - exact| / bound over its outputs, where the
// bound is the gate's standard one for a correct binary32 kernel (gate/attend_tolerance.cpp). A
// NaN output (an element no work item wrote) counts as infinitely far.
// tamper, when given, changes the launch before it runs (to show the bound notices).
double worst_fraction(const char* spec_text, io_type io, angle_mode mode, bool causal, std::int64_t max_pos, std::uint32_t seed,
                      void (*tamper)(pe::kernels::attend_args&, std::vector<std::int64_t>& kpos) = nullptr) {
  const pe::spec s = pe::parse_spec(spec_text);
  const std::int64_t queries = 5, keys = 7, heads = 2, dim = s.integer("dim"), value_dim = 3;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-2.0, 2.0);
  const auto draw = [&](std::int64_t n) {
    std::vector<double> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = value(rng);
    return io_buffer::of(io, v);
  };
  const io_buffer q = draw(queries * heads * dim), k = draw(keys * heads * dim), v = draw(keys * heads * value_dim);
  std::vector<std::int64_t> qpos, kpos;
  for (std::int64_t j = 0; j < keys; ++j) kpos.push_back(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_pos)));
  // Every query sees a key when causal: each sits at or after the earliest key.
  const std::int64_t earliest = *std::min_element(kpos.begin(), kpos.end());
  for (std::int64_t i = 0; i < queries; ++i) qpos.push_back(earliest + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(max_pos - earliest)));
  const auto q_tables = pe::kernels::rotate_tables::of(s, qpos), k_tables = pe::kernels::rotate_tables::of(s, kpos);
  io_buffer out(io, queries * heads * value_dim);
  pe::kernels::attend_args a{};
  a.q = q.bytes.data(), a.k = k.bytes.data(), a.v = v.bytes.data(), a.out = out.data(), a.qpos = qpos.data(), a.kpos = kpos.data();
  a.q_inv_freq = q_tables.inv_freq.data(), a.k_inv_freq = k_tables.inv_freq.data(), a.q_turns = q_tables.turns.data(), a.k_turns = k_tables.turns.data();
  a.q_factor = q_tables.factor, a.k_factor = k_tables.factor;
  a.queries = queries, a.keys = keys, a.heads = heads, a.dim = dim, a.value_dim = value_dim;
  a.rotary_dim = s.integer("rotary_dim"), a.neox = s.choice("layout") == "neox", a.causal = causal, a.io = io, a.mode = mode;
  std::vector<std::int64_t> launched_kpos = kpos;
  if (tamper) tamper(a, launched_kpos);
  a.kpos = launched_kpos.data();
  pe::kernels::run_on_host(a);
  // The reference and the bound, from the inputs as they are stored.
  pe::op_inputs in;
  const auto as_tensor = [](const io_buffer& b, std::vector<std::int64_t> shape) {
    pe::tensor<double> t(std::move(shape));
    for (std::int64_t e = 0; e < b.size(); ++e) t.data[static_cast<std::size_t>(e)] = b.at(e);
    return t;
  };
  in.attend.q = as_tensor(q, {queries, heads, dim}), in.attend.k = as_tensor(k, {keys, heads, dim}), in.attend.v = as_tensor(v, {keys, heads, value_dim});
  in.attend.qpos = qpos, in.attend.kpos = kpos, in.attend.causal = causal;
  const auto exact = pe::run_op<double>("attend", s, in).at(0).value;
  const pe::gate::error_model model = pe::gate::error_model::of(gate_dtype(io), pe::gate::dtype::f32, "standard");
  const auto bound = pe::gate::output_bounds(model, "attend", s, in, {{"out", exact}}).at(0);
  double worst = 0;
  for (std::int64_t e = 0; e < out.size(); ++e) {
    const double error = std::fabs(out.at(e) - exact.data[static_cast<std::size_t>(e)]);
    worst = std::max(worst, std::isnan(error) ? INFINITY : error / bound[static_cast<std::size_t>(e)]);
  }
  return worst;
}

constexpr const char* specs[] = {"rope(dim=16, layout=neox)", "rope(dim=16, layout=gptj)", "rope(dim=24, rotary_dim=8)",
                                 "rope(dim=16, scaling=yarn(factor=8, original_max=64))", "rope(dim=16, scaling=dynamic(factor=4, original_max=32))",
                                 "rope(dim=16, scaling=llama3(factor=8, low_freq_factor=1, high_freq_factor=4, original_max=64))"};

// The accurate mode at positions up to 2^40 and the fast mode up to 2^20 (inside the range its
// proof states, proofs/precision.kernel_rotate.md), causal and not: within the gate's bound at
// every output, in every I/O type.
TEST(attend_kernel, is_within_the_gate_bound) {
  for (const io_type io : pe::kernels::testing::all_io)
    for (const char* spec : specs)
      for (const bool causal : {false, true})
        for (const angle_mode mode : {angle_mode::accurate, angle_mode::fast}) {
          const std::int64_t max_pos = mode == angle_mode::accurate ? std::int64_t{1} << 40 : std::int64_t{1} << 20;
          const double worst = worst_fraction(spec, io, mode, causal, max_pos, 11);
          EXPECT_LE(worst, 1.0) << spec << " at " << pe::kernels::testing::io_name(io) << (causal ? ", causal" : "")
                                << (mode == angle_mode::fast ? ", fast angles" : ", accurate angles");
        }
}

// The bound notices a kernel that pairs the wrong dims (the other layout) or turns the keys by
// the wrong positions (one later): each breaks it by far, in both angle modes.
TEST(attend_kernel, the_bound_notices_a_wrong_layout_or_wrong_key_positions) {
  for (const angle_mode mode : {angle_mode::accurate, angle_mode::fast}) {
    EXPECT_GT(worst_fraction("rope(dim=16)", io_type::f32, mode, false, 4096, 11, [](pe::kernels::attend_args& a, std::vector<std::int64_t>&) { a.neox = !a.neox; }), 1.0);
    EXPECT_GT(worst_fraction("rope(dim=16)", io_type::f32, mode, false, 4096, 11, [](pe::kernels::attend_args&, std::vector<std::int64_t>& kpos) {
                for (auto& p : kpos) ++p;
              }), 1.0);
  }
}

}  // namespace
