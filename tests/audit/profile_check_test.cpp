// Tests of src/audit/profile_check.hpp: real sweeps' profiles (whole, sharded, failing, with failed calls) are accepted; each forged claim is refused by name.
#include "audit/profile_check.hpp"

#include <functional>

#include <gtest/gtest.h>

#include "audit/profile.hpp"
#include "audit/sweep.hpp"
#include "gate/op_io.hpp"
#include "pe/error.hpp"

namespace pe::audit {
namespace {

audit_request request(const std::string& spec, const std::string& positions, const std::string& shard = "1/1") {
  audit_request q;
  q.spec = spec, q.positions = positions, q.heads = 2, q.tokens_per_call = 37, q.shard = shard;
  return q;
}

// The reference with the outputs at positions 300-310 moved by 2^-8 (1 + |y|), and calls holding
// position 1000 failing: errors of thousands of ulps in one decade, and a hole in the coverage.
class flawed final : public gate::implementation {
 public:
  std::string name() const override { return "flawed"; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    const auto& pos = *std::find_if(inputs.begin(), inputs.end(), [](const auto& t) { return t.name == "pos"; });
    const std::int64_t tokens = pos.shape.at(0);
    for (std::int64_t t = 0; t < tokens; ++t)
      if (static_cast<std::int64_t>(pos.at(t)) == 1000) return {gate::call_status::error, "no", {}, false};
    auto r = inner_->run(op, spec_text, inputs, outputs);
    auto y = gate::as_doubles(r.outputs.at(0));
    const std::int64_t row = static_cast<std::int64_t>(y.data.size()) / tokens;
    for (std::int64_t t = 0; t < tokens; ++t) {
      const auto p = static_cast<std::int64_t>(pos.at(t));
      if (p < 300 || p > 310) continue;
      for (std::int64_t e = t * row; e < (t + 1) * row; ++e) y.data[e] += 0x1p-8 * (1 + std::abs(y.data[e]));
    }
    r.outputs.at(0) = gate::real_tensor("y", r.outputs.at(0).type, y);
    return r;
  }

 private:
  std::unique_ptr<gate::implementation> inner_ = gate::reference_implementation();
};

audit_profile sweep(const audit_request& q) {
  auto impl = gate::reference_implementation();
  return run_audit(q, *impl);
}

// The message of check_profile_claims on `p` after `forge`, "" when it was accepted.
std::string refusal(audit_profile p, const std::function<void(audit_profile&)>& forge) {
  forge(p);
  try {
    check_profile_claims(p, "part.json");
    return "";
  } catch (const input_error& e) {
    return e.what();
  }
}

TEST(profile_claims, real_sweeps_are_accepted) {
  for (const std::string spec : {"rope(dim=16)", "rope(dim=16, rotary_dim=8)", "sinusoidal(dim=8)"}) {
    SCOPED_TRACE(spec);
    EXPECT_NO_THROW(check_profile_claims(sweep(request(spec, "0:3000")), "whole.json"));
    EXPECT_NO_THROW(check_profile_claims(sweep(request(spec, "log:0:2^40:200", "2/3")), "part.json"));
  }
  flawed impl;
  const auto p = run_audit(request("rope(dim=16)", "0:3000"), impl);
  ASSERT_FALSE(p.failed_calls.empty());
  ASSERT_GT(p.total().max_ulps, 100);
  EXPECT_NO_THROW(check_profile_claims(p, "flawed.json"));
}

TEST(profile_claims, forged_claims_are_refused_by_name) {
  const audit_profile p = sweep(request("rope(dim=16)", "0:362"));
  // No buckets, full coverage: "0 elements checked at 362 of 362 positions ... PASS".
  // 256 positions x 2 heads x band 0's one pair (rope(dim=16): eight bands of a pair each).
  EXPECT_EQ(refusal(p, [](audit_profile& q) { std::fill(q.buckets.begin(), q.buckets.end(), bucket_stats{}); }),
            "part.json: bucket (decade 0-255, band 0): 0 elements, where its covered positions hold 1024: not what an audit of its setup "
            "measures, refused");
  // A worst element dropped under a max_fraction of 5.
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(1, 0).max_fraction = 5, q.bucket(1, 0).worst_fraction = {}; }).find("worst_fraction: missing"),
            std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(1, 0).max_fraction = 0.001; }).find("are not its worst elements'"), std::string::npos);
  // Counts of 2^64 - 1.
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(0, 2).count = UINT64_MAX; }).find("18446744073709551615 elements"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.octaves[3].count += 16; }).find("octave 3:"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(0, 0).histogram.counts[0] += 1; }).find("histogram"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(0, 0).nonfinite = q.bucket(0, 0).count + 1; }).find("non-finite"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(0, 0).max_ulps = q.bucket(0, 0).worst_ulps.ulps = 1e-9; }).find("top bin"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(0, 0).sum_squares *= 1000; }).find("sum of squares"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(0, 0).worst_ulps.position = 300; }).find("not a covered position of decade 0-255"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.bucket(0, 0).worst_ulps.index = 15; }).find("index 15 is not one of band 0"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.first_over[0] = 7; }).find(".first_over.1: 7, and no error"), std::string::npos);
  // The coverage claims what the counts do not hold, or more than was assigned.
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.coverage = {{0, 300}}; }).find("elements, where its covered positions hold"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.assigned = {{0, 300}}; }).find("not within the positions assigned"), std::string::npos);
  // The setup: bands, heads, positions.
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.setup.bands.pop_back(); }).find("the sweep of rope(dim=16"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.setup.position_count = 400; }).find("not .position_count 400"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.setup.spec = "rope(dim=16"; }).find(".spec:"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.sample_positions = 363; }).find("mpfr_sample"), std::string::npos);
  // And the profile itself passes.
  EXPECT_EQ(refusal(p, [](audit_profile&) {}), "");
}

TEST(profile_claims, the_first_position_over_a_threshold_is_checked_against_the_worst) {
  flawed impl;
  const auto p = run_audit(request("rope(dim=16)", "0:900"), impl);
  ASSERT_EQ(p.first_over[0], 300);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.first_over[0] = -1; }).find(".first_over.1: -1, and an error is above 1 ulps"), std::string::npos);
  EXPECT_NE(refusal(p, [](audit_profile& q) { q.first_over[0] = 500; }).find("after an error of"), std::string::npos);
  EXPECT_EQ(refusal(p, [](audit_profile&) {}), "");
}

// A part of rope(dim=2) over 0:400000 that covered every other position of [begin, end), each with
// its 2 elements of 0.25 ulps: what a sweep whose every other call failed would hold.
audit_profile every_other_position(std::int64_t begin, std::int64_t end) {
  audit_setup s;
  s.implementation = "test", s.spec = "rope(dim=2, base=10000, rotary_dim=2, layout=neox, truncate_low=0)", s.op = "rotate", s.dtype = "f32";
  s.working = "f32", s.tolerance = "standard", s.positions = "0:400000", s.position_count = 400000, s.heads = 1, s.tokens_per_call = 1;
  s.seed = 1, s.unit = "pair", s.bands = {{0, 0}};
  audit_profile p(s);
  p.assign(begin, end);
  for (std::int64_t i = begin; i < end; i += 2) {
    p.cover(i, i + 1);
    for (std::int64_t index = 0; index < 2; ++index) {
      element_record e;
      e.position = i, e.index = index, e.ulps = 0.25, e.fraction = 0.01;
      p.bucket(decade_of(i), 0).add(e);
    }
    octave_stats row;
    row.count = 2, row.max_ulps = 0.25, row.sum_squares = 2 * squared_units(0.25);
    p.octaves[static_cast<std::size_t>(octave_of(i))].merge(row);
  }
  return p;
}

// 10^5 ranges a part, read, checked and merged: each step linear or n log n (ranges were sorted
// again for each one read, and parts compared range by range: 101 s at 10^5). The ctest time
// limit (pecheck_test's TIMEOUT) catches a return of that; the assertions check the result.
TEST(profile_claims, parts_of_a_hundred_thousand_ranges_read_check_and_merge) {
  const auto a = profile_from_json(to_json(every_other_position(0, 200000)), "a.json");
  const auto b = profile_from_json(to_json(every_other_position(200000, 400000)), "b.json");
  ASSERT_EQ(a.coverage.size(), 100000u);
  check_profile_claims(a, "a.json");
  check_profile_claims(b, "b.json");
  audit_profile merged = a;
  merged.merge(b);
  EXPECT_EQ(merged.coverage.size(), 200000u);
  EXPECT_TRUE(merged.whole_set());
  EXPECT_EQ(merged.total().count, 400000u);
  check_profile_claims(merged, "merged");
  // The same part twice overlaps at its first position.
  try {
    merged.merge(b);
    ADD_FAILURE();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "audit merge: two parts both cover positions 200000 to 399999 of the set");
  }
}

}  // namespace
}  // namespace pe::audit
