// Tests of src/audit/profile.hpp: histogram bins, bucket statistics, merging, and the JSON form read back.
#include "audit/profile.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "pe/error.hpp"

namespace pe::audit {
namespace {

TEST(ulp_histogram, bins_split_each_octave_in_eighths) {
  EXPECT_EQ(ulp_histogram::bin_of(0), 0);
  const int one = ulp_histogram::bin_of(1.0);
  EXPECT_EQ(ulp_histogram::bin_of(1.124), one);      // [1, 1.125)
  EXPECT_EQ(ulp_histogram::bin_of(1.125), one + 1);  // [1.125, 1.25)
  EXPECT_EQ(ulp_histogram::bin_of(2.0), one + 8);
  EXPECT_EQ(ulp_histogram::upper_edge(one), 1.125);
  EXPECT_EQ(ulp_histogram::upper_edge(one + 7), 2.0);
  EXPECT_EQ(ulp_histogram::bin_of(INFINITY), ulp_histogram::bins - 1);
  EXPECT_EQ(ulp_histogram::bin_of(NAN), ulp_histogram::bins - 1);
  EXPECT_EQ(ulp_histogram::bin_of(0x1p-40), 1);
}

element_record at(std::int64_t position, double ulps, double fraction) {
  element_record e;
  e.position = position, e.ulps = ulps, e.fraction = fraction;
  return e;
}

TEST(bucket_stats, max_rms_and_p99_of_known_errors) {
  bucket_stats b;
  for (int k = 0; k < 99; ++k) b.add(at(k, 0.5, 0.1));
  b.add(at(99, 3, 2));
  EXPECT_EQ(b.count, 100u);
  EXPECT_EQ(b.max_ulps, 3);
  EXPECT_EQ(b.worst_ulps.position, 99);
  EXPECT_EQ(b.max_fraction, 2);
  // sqrt((99 * 0.25 + 9) / 100)
  EXPECT_DOUBLE_EQ(b.rms_ulps(), std::sqrt((99 * 0.25 + 9) / 100));
  EXPECT_EQ(b.p99_ulps(), 0.5625);  // 0.5 lies in [0.5, 0.5625): 99 of 100 are at or below that edge
}

TEST(bucket_stats, ties_go_to_the_earlier_element_in_any_order) {
  bucket_stats forward, backward;
  for (int k = 0; k < 10; ++k) forward.add(at(k, 1, 1));
  for (int k = 9; k >= 0; --k) backward.add(at(k, 1, 1));
  EXPECT_EQ(forward.worst_ulps.position, 0);
  EXPECT_EQ(backward.worst_ulps.position, 0);
}

TEST(bucket_stats, a_non_finite_output_counts_apart_from_the_rms) {
  bucket_stats b;
  b.add(at(1, 2, 0.5));
  b.add(at(2, INFINITY, INFINITY));
  EXPECT_EQ(b.nonfinite, 1u);
  EXPECT_EQ(b.rms_ulps(), 2);
  EXPECT_TRUE(std::isinf(b.max_ulps));
  EXPECT_EQ(b.worst_ulps.position, 2);
}

audit_setup setup() {
  audit_setup s;
  s.implementation = "test", s.spec = "rope(dim=4)", s.op = "rotate", s.dtype = "f32", s.working = "f32", s.tolerance = "standard";
  s.positions = "0:100", s.position_count = 100, s.heads = 1, s.tokens_per_call = 10, s.seed = 1, s.unit = "pair";
  s.bands = {{0, 0}, {1, 1}};
  return s;
}

TEST(audit_profile, parts_merge_to_the_whole_and_refuse_to_overlap) {
  audit_profile a(setup()), b(setup()), whole(setup());
  a.assign(0, 50), a.cover(0, 50), b.assign(50, 100), b.cover(50, 100), whole.assign(0, 100), whole.cover(0, 100);
  a.bucket(0, 0).add(at(3, 1.5, 0.2)), whole.bucket(0, 0).add(at(3, 1.5, 0.2));
  b.bucket(0, 1).add(at(70, 0.25, 0.3)), whole.bucket(0, 1).add(at(70, 0.25, 0.3));
  a.first_over = {3, -1, -1}, whole.first_over = {3, -1, -1};
  audit_profile merged = b;
  merged.merge(a);
  EXPECT_TRUE(merged.whole_set());
  EXPECT_EQ(to_json(merged).dump(), to_json(whole).dump());
  EXPECT_THROW(merged.merge(a), input_error);  // a second time: the parts overlap
  audit_setup other = setup();
  other.seed = 2;
  EXPECT_THROW(a.merge(audit_profile(other)), input_error);
}

TEST(audit_profile, its_json_reads_back_to_the_same_json) {
  audit_profile p(setup());
  p.assign(0, 100), p.cover(0, 40);
  p.bucket(1, 1).add(at(300, INFINITY, INFINITY));
  p.bucket(0, 0).add(at(5, 0.75, 0.01));
  p.failed_calls = {"positions 40..49: crashed: signal 11"};
  p.sample_positions = 3, p.sample_worst_ulps = 0.5;
  const auto j = to_json(p);
  EXPECT_EQ(to_json(profile_from_json(j, "p.json")).dump(), j.dump());
}

TEST(audit_profile, a_malformed_file_is_named_with_its_field) {
  auto j = to_json(audit_profile(setup()));
  j["buckets"] = nlohmann::json::array({{{"decade", 99}, {"band", 0}}});
  try {
    profile_from_json(j, "part.json");
    ADD_FAILURE();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "part.json: .buckets[0] names no bucket");
  }
  // Numbers inside a field's arrays are held to its type too: a real past 2^64 (nlohmann would
  // convert it to an integer, undefined past the range; the audit_part fuzzer found it), a
  // negative count, an int64 where an int is read.
  for (const auto& [histogram, what] : std::vector<std::pair<nlohmann::json, std::string>>{
           {nlohmann::json::array({nlohmann::json::array({3, 3.9e19})}), "real"},
           {nlohmann::json::array({nlohmann::json::array({3, -1})}), "negative"},
           {nlohmann::json::array({nlohmann::json::array({std::int64_t{1} << 40, 1})}), "int64 bin"}}) {
    SCOPED_TRACE(what);
    auto forged = to_json(audit_profile(setup()));
    forged["buckets"] = nlohmann::json::array({{{"decade", 0}, {"band", 0}, {"count", 1}, {"nonfinite", 0}, {"sum_squares", {0, 0}},
                                               {"max_ulps", 0}, {"max_fraction", 0}, {"worst_ulps", nullptr}, {"worst_fraction", nullptr},
                                               {"histogram", histogram}}});
    try {
      profile_from_json(forged, "part.json");
      ADD_FAILURE();
    } catch (const input_error& e) {
      EXPECT_EQ(std::string(e.what()), "part.json: .buckets[0].histogram has the wrong type");
    }
  }
  j.erase("heads");
  EXPECT_THROW(profile_from_json(j, "part.json"), input_error);
  EXPECT_THROW(profile_from_json(nlohmann::json::array(), "part.json"), input_error);
}

}  // namespace
}  // namespace pe::audit
