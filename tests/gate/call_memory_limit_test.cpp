// Tests for load_plugin's memory_limit_bytes (implementation_flags::memory_limit_mib): a call is
// stopped at the budget it was given, not at the default GiB, and the message names that budget.
#include <gtest/gtest.h>

#include "gate/implementation.hpp"
#include "gate/io.hpp"

namespace pe::gate {
namespace {

// One rotate call of rope(dim=64), as the gate sends it (canonical spec text): x [1, 1, 64] and pos [1] in, y out, all f32 but pos.
call_result one_rotate(implementation& impl) {
  io_tensor x{"x", dtype::f32, {1, 1, 64}, std::vector<unsigned char>(64 * 4)};
  io_tensor pos{"pos", dtype::i64, {1}, std::vector<unsigned char>(8)};
  io_tensor y{"y", dtype::f32, {1, 1, 64}, std::vector<unsigned char>(64 * 4)};
  return impl.run("rotate", "rope(dim=64, base=10000, rotary_dim=64, layout=neox, truncate_low=0)", {x, pos}, {y});
}

// FAULT_TOUCH_PLUGIN touches 1.5 GiB in each rotate call (faulty_plugins.c, TOUCH_1_5_GIB).
TEST(CallMemoryLimit, ACallStopsAtTheBudgetItWasGiven) {
  implementation_flags flags;
  flags.impl = FAULT_TOUCH_PLUGIN;
  flags.memory_limit_mib = 256;
  const auto impl = open_implementation(flags, "test");
  const call_result r = one_rotate(*impl);
  EXPECT_EQ(r.status, call_status::crashed);
  EXPECT_NE(r.message.find("grew past 256 MiB"), std::string::npos) << r.message;
}

TEST(CallMemoryLimit, TheDefaultIsOneGiB) {
  EXPECT_EQ(implementation_flags{}.memory_limit_mib, 1024u);
}

}  // namespace
}  // namespace pe::gate
