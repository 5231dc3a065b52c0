// Tests of src/audit/sweep.hpp: the sweep finds an error where it was put, shards merge to the unsharded profile, and the
// correctly rounded reference is measured within half an ulp.
#include "audit/sweep.hpp"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "gate/op_io.hpp"
#include "pe/error.hpp"

namespace pe::audit {
namespace {

audit_request request(const std::string& positions) {
  audit_request q;
  q.spec = "rope(dim=16)", q.positions = positions, q.heads = 2, q.tokens_per_call = 37;
  return q;
}

TEST(run_audit, the_correctly_rounded_reference_is_within_half_an_ulp_everywhere) {
  auto impl = gate::reference_implementation();
  const auto p = run_audit(request("0:3000"), *impl);
  const auto t = p.total();
  EXPECT_EQ(t.count, 3000u * 2 * 16);
  // Each output is the f32 rounding of the exact value: within half its own ulp, so within half
  // an ulp of the row's largest value.
  EXPECT_LE(t.max_ulps, 0.5);
  EXPECT_GT(t.max_ulps, 0.45);  // and near it: 96000 roundings
  EXPECT_EQ(p.sample_positions, 32);
  EXPECT_LE(p.sample_worst_ulps, 0.5);  // binary64's correct rounding against MPFR
  EXPECT_TRUE(audit_passed(p));
}

// The reference with every output of two positions moved by 2^-10 (1 + |y|): thousands of ulps.
class moved_at final : public gate::implementation {
 public:
  moved_at(std::int64_t first, std::int64_t second) : first_(first), second_(second) {}
  std::string name() const override { return "moved"; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    auto r = inner_->run(op, spec_text, inputs, outputs);
    const auto& pos = *std::find_if(inputs.begin(), inputs.end(), [](const auto& t) { return t.name == "pos"; });  // [T, 1]
    auto y = gate::as_doubles(r.outputs.at(0));
    const std::int64_t tokens = pos.shape.at(0), row = static_cast<std::int64_t>(y.data.size()) / tokens;
    for (std::int64_t t = 0; t < tokens; ++t) {
      const auto p = static_cast<std::int64_t>(pos.at(t));
      if (p != first_ && p != second_) continue;
      for (std::int64_t e = t * row; e < (t + 1) * row; ++e) y.data[e] += 0x1p-10 * (1 + std::abs(y.data[e]));
    }
    r.outputs.at(0) = gate::real_tensor("y", r.outputs.at(0).type, y);
    return r;
  }

 private:
  std::int64_t first_, second_;
  std::unique_ptr<gate::implementation> inner_ = gate::reference_implementation();
};

TEST(run_audit, an_error_is_found_where_it_was_put) {
  moved_at impl(1000, 2900);
  const auto p = run_audit(request("0:3000"), impl);
  const auto t = p.total();
  EXPECT_EQ(t.worst_ulps.position == 1000 || t.worst_ulps.position == 2900, true);
  EXPECT_GT(t.max_ulps, 1000);
  EXPECT_GT(t.max_fraction, 1);
  EXPECT_EQ(p.first_over, (std::array<std::int64_t, 3>{1000, 1000, 1000}));
  // Decade 256-4095 holds both; decade 0-255 holds none of them.
  EXPECT_LE(p.bucket(0, 0).max_ulps, 0.5);
  EXPECT_GT(p.bucket(1, 0).max_ulps, 1000);
  EXPECT_FALSE(audit_passed(p));
}

TEST(run_audit, shards_merge_to_the_unsharded_profile_exactly) {
  moved_at impl(700, 2900);  // something beyond rounding to keep track of too
  const auto whole = run_audit(request("log:0:2^40:500"), impl);
  audit_profile merged;
  for (const char* part : {"2/3", "3/3", "1/3"}) {
    auto q = request("log:0:2^40:500");
    q.shard = part;
    const auto p = run_audit(q, impl);
    EXPECT_FALSE(p.whole_set());
    if (merged.buckets.empty()) merged = p;
    else merged.merge(p);
  }
  EXPECT_EQ(to_json(merged).dump(1), to_json(whole).dump(1));
}

TEST(run_audit, a_scheme_with_no_position_op_is_refused) {
  auto impl = gate::reference_implementation();
  auto q = request("0:10");
  q.spec = "alibi(heads=8)";
  try {
    run_audit(q, *impl);
    ADD_FAILURE();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 70), "audit: alibi has no op that runs position by position (encode or rotat");
  }
}

TEST(run_audit, an_encoding_is_swept_by_component_pairs) {
  auto impl = gate::reference_implementation();
  auto q = request("0:5000");
  q.spec = "sinusoidal(dim=32)";
  const auto p = run_audit(q, *impl);
  EXPECT_EQ(p.setup.op, "encode");
  EXPECT_EQ(p.setup.heads, 1);
  EXPECT_EQ(p.total().count, 5000u * 32);
  EXPECT_LE(p.total().max_ulps, 0.5);  // correctly rounded: within half an ulp of 1 or less
}

}  // namespace
}  // namespace pe::audit
