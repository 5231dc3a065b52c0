// Tests of src/audit/baseline.hpp: an implementation that gets worse only past 2^20 is flagged there, an identical re-run
// is not, and a baseline of another spec or a malformed one is refused with its line.
#include "audit/baseline.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "audit/sweep.hpp"
#include "gate/op_io.hpp"
#include "pe/error.hpp"

namespace pe::audit {
namespace {

// The reference, with every output at positions from 2^20 on moved 8 binary32 ulps away from 0.
class worse_past_2_20 final : public gate::implementation {
 public:
  std::string name() const override { return "worse past 2^20"; }
  gate::call_result run(const std::string& op, const std::string& spec_text, const std::vector<gate::io_tensor>& inputs,
                        const std::vector<gate::io_tensor>& outputs) override {
    auto r = inner_->run(op, spec_text, inputs, outputs);
    const auto& pos = *std::find_if(inputs.begin(), inputs.end(), [](const auto& t) { return t.name == "pos"; });
    auto y = gate::as_doubles(r.outputs.at(0));
    const std::int64_t tokens = pos.shape.at(0), row = static_cast<std::int64_t>(y.data.size()) / tokens;
    for (std::int64_t t = 0; t < tokens; ++t)
      if (pos.at(t) >= 0x1p20)
        for (std::int64_t e = t * row; e < (t + 1) * row; ++e) {
          float v = static_cast<float>(y.data[e]);
          for (int k = 0; k < 8; ++k) v = std::nextafter(v, v < 0 ? -INFINITY : INFINITY);
          y.data[e] = v;
        }
    r.outputs.at(0) = gate::real_tensor("y", r.outputs.at(0).type, y);
    return r;
  }

 private:
  std::unique_ptr<gate::implementation> inner_ = gate::reference_implementation();
};

audit_request request() {
  audit_request q;
  q.spec = "rope(dim=32)", q.positions = "log:0:2^23:300", q.heads = 2, q.tokens_per_call = 64;
  return q;
}

std::string saved(const std::string& name, const std::string& text) {
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}

TEST(audit_baseline, a_run_worse_only_past_2_20_is_flagged_there) {
  auto reference = gate::reference_implementation();
  const auto path = saved("pecheck_baseline_reference.txt", baseline_text(run_audit(request(), *reference)));
  worse_past_2_20 worse;
  const auto v = compare_with_baseline(run_audit(request(), worse), path, 2);
  EXPECT_TRUE(v.regressed);
  ASSERT_FALSE(v.moved.empty());
  for (const auto& line : v.moved) EXPECT_EQ(line.substr(0, 20), "REGRESSED 2^20-2^24 ") << line;
}

TEST(audit_baseline, an_identical_rerun_is_not_flagged) {
  worse_past_2_20 worse;
  const auto path = saved("pecheck_baseline_worse.txt", baseline_text(run_audit(request(), worse)));
  const auto v = compare_with_baseline(run_audit(request(), worse), path, 2);
  EXPECT_FALSE(v.regressed);
  EXPECT_TRUE(v.moved.empty());
}

TEST(audit_baseline, another_spec_or_a_broken_line_is_refused) {
  auto reference = gate::reference_implementation();
  const auto profile = run_audit(request(), *reference);
  const auto other = saved("pecheck_baseline_other.txt", std::string(audit_baseline_header) + "\nspec rope(dim=8)\n");
  try {
    compare_with_baseline(profile, other, 2);
    ADD_FAILURE();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("--baseline '{}' is for spec rope(dim=8); this audit's is {}", other, profile.setup.spec));
  }
  const auto broken = saved("pecheck_baseline_broken.txt", baseline_text(profile) + "bucket 0-255 | pairs 0-1 | 12 | x | 1 | 1\n");
  try {
    compare_with_baseline(profile, broken, 2);
    ADD_FAILURE();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find(": 'x' is not a number"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pe::audit
