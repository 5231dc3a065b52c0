// Every registered scheme is covered end to end: a spec generator, a law, a golden set, and gate support for each op (or a reason).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "gate/op_io.hpp"
#include "golden/case_sets.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"
#include "properties/generators.hpp"
#include "properties/property.hpp"

namespace {

// The registered top-level schemes (the ones with behaviour; RoPE's scalings are nested).
std::vector<const pe::scheme_info*> schemes() {
  std::vector<const pe::scheme_info*> out;
  for (const pe::scheme_info& info : pe::registry())
    if (info.behaviour) out.push_back(&info);
  return out;
}

TEST(coverage, the_registry_has_every_family) {
  // A scheme file left out of the build would silently drop its scheme: count them.
  EXPECT_GE(schemes().size(), 14u);
}

TEST(coverage, every_scheme_has_a_spec_generator) {
  for (const auto* info : schemes()) EXPECT_TRUE(pe::props::has_spec_generator(info->name)) << info->name << " has no spec generator";
}

TEST(coverage, every_scheme_is_a_target_of_some_law) {
  std::set<std::string> targeted;
  for (const auto& p : pe::props::properties())
    for (const auto& t : p.targets) targeted.insert(t.scheme);
  for (const auto* info : schemes()) EXPECT_TRUE(targeted.count(info->name)) << info->name << " is the target of no law";
}

TEST(coverage, every_scheme_has_a_golden_set) {
  std::set<std::string> golden;
  for (const auto& set : pe::golden::case_sets()) golden.insert(pe::parse_spec(set.spec).scheme());
  for (const auto* info : schemes()) EXPECT_TRUE(golden.count(info->name)) << info->name << " has no golden set";
}

TEST(coverage, every_op_has_gate_support_or_a_reason) {
  const auto& driven = pe::gate::gate_ops();
  for (const auto* info : schemes()) {
    const auto& gaps = info->behaviour->gate_gaps;
    for (const auto& op : info->ops) {
      if (op == "matrix") continue;  // the laws' view of rotate: the gate checks rotate itself
      const auto gap = std::find_if(gaps.begin(), gaps.end(), [&](const auto& g) { return g.first == op; });
      if (gap != gaps.end()) {
        EXPECT_FALSE(gap->second.empty()) << info->name << ": op " << op << " is a gate gap without a reason";
      } else {
        EXPECT_NE(std::find(driven.begin(), driven.end(), op), driven.end()) << info->name << ": the gate cannot drive op " << op;
      }
    }
  }
}

// An op a scheme lists must have its hook: registration refuses it (no silent fallback such as
// plain attention for a bias scheme without a bias).
TEST(coverage, registration_refuses_an_op_without_its_hook) {
  pe::scheme_info info{"bias_without_hook_t", "encoding", "a test scheme", {}, {"bias", "attend"}, {}};
  pe::scheme_behaviour b;
  b.kind = pe::scheme_kind::bias;
  EXPECT_THROW(pe::scheme_registration(0, info, b), std::logic_error);
  pe::scheme_behaviour plain;
  info.ops = {"bias"};
  EXPECT_THROW(pe::scheme_registration(0, info, plain), std::logic_error);
  info.ops = {"teleport"};
  EXPECT_THROW(pe::scheme_registration(0, info, plain), std::logic_error);
  EXPECT_EQ(pe::find_scheme("bias_without_hook_t"), nullptr);
}

}  // namespace
