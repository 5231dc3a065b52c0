// Tests of src/audit/shard_environment.hpp: --shard auto from each scheduler's variables, given as a fake environment, and each refusal.
#include "audit/shard_environment.hpp"

#include <map>

#include <gtest/gtest.h>

#include "pe/error.hpp"

namespace pe::audit {
namespace {

using variables = std::map<std::string, std::string, std::less<>>;

environment_lookup fake(const variables& vars) {
  return [&vars](std::string_view name) -> std::optional<std::string> {
    const auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

environment_shard resolve(const variables& vars, std::string_view text = "auto") { return shard_from_environment(text, fake(vars)); }

// The refusal's message; "" when nothing was refused.
std::string refusal(const variables& vars, std::string_view text = "auto") {
  try {
    resolve(vars, text);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

void expect_shard(const environment_shard& s, std::int64_t index, std::int64_t count) {
  EXPECT_EQ(s.part.index, index) << s.source;
  EXPECT_EQ(s.part.count, count) << s.source;
}

TEST(shard_environment, auto_and_auto_n_are_resolved_here_and_i_n_is_not) {
  EXPECT_TRUE(is_auto_shard("auto"));
  EXPECT_TRUE(is_auto_shard("auto/8"));
  EXPECT_FALSE(is_auto_shard("2/8"));
  EXPECT_FALSE(is_auto_shard("automatic"));
}

TEST(shard_environment, a_slurm_array_from_0_maps_its_id_to_the_next_shard) {
  const variables v{{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                    {"SLURM_ARRAY_TASK_COUNT", "8"}, {"SLURM_ARRAY_TASK_STEP", "1"}};
  const auto s = resolve(v);
  expect_shard(s, 3, 8);
  EXPECT_EQ(s.source,
            "Slurm (SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_STEP=1, SLURM_ARRAY_TASK_COUNT=8, SLURM_ARRAY_TASK_MAX=7)");
}

TEST(shard_environment, a_slurm_array_from_1_is_offset_by_its_minimum) {
  // --array=1-8: ids 1..8, the first shard is id 1.
  const variables v{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "8"},
                    {"SLURM_ARRAY_TASK_COUNT", "8"}, {"SLURM_ARRAY_TASK_STEP", "1"}};
  expect_shard(resolve(v), 1, 8);
}

TEST(shard_environment, a_stepped_slurm_array_counts_its_ids_by_the_step) {
  // --array=0-15:4: ids 0, 4, 8, 12; id 8 is the third.
  variables v{{"SLURM_ARRAY_TASK_ID", "8"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "12"},
              {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_STEP", "4"}};
  expect_shard(resolve(v), 3, 4);
  v["SLURM_ARRAY_TASK_ID"] = "6";  // between the ids: no shard of the array
  EXPECT_EQ(refusal(v),
            "--shard auto: SLURM_ARRAY_TASK_ID=6 is not one of the 4 Slurm ids from 0 in steps of 4 (SLURM_ARRAY_TASK_ID=6, "
            "SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_STEP=4, SLURM_ARRAY_TASK_COUNT=4, SLURM_ARRAY_TASK_MAX=12)");
}

TEST(shard_environment, a_slurm_array_without_its_step_variable_is_read_with_step_1_and_checked) {
  variables v{{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "8"}, {"SLURM_ARRAY_TASK_COUNT", "8"}};
  expect_shard(resolve(v), 5, 8);
  // --array=0-15:4 (ids 0, 4, 8, 12) read without its step: 4 ids from 0 would end at 3, not 12.
  v = {{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "12"}, {"SLURM_ARRAY_TASK_COUNT", "4"}};
  EXPECT_EQ(refusal(v),
            "--shard auto: Slurm's ids are not 4 evenly spaced from 0 in steps of 1 (SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=0, "
            "SLURM_ARRAY_TASK_COUNT=4, SLURM_ARRAY_TASK_MAX=12): they cannot be mapped to shards i/n exactly; give --shard i/n");
}

TEST(shard_environment, a_slurm_list_of_uneven_ids_is_refused) {
  // --array=1,3,7: three ids from 1 to 7, not evenly spaced by any step Slurm states.
  const variables v{{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "7"},
                    {"SLURM_ARRAY_TASK_COUNT", "3"}, {"SLURM_ARRAY_TASK_STEP", "1"}};
  EXPECT_EQ(refusal(v),
            "--shard auto: Slurm's ids are not 3 evenly spaced from 1 in steps of 1 (SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_MIN=1, "
            "SLURM_ARRAY_TASK_STEP=1, SLURM_ARRAY_TASK_COUNT=3, SLURM_ARRAY_TASK_MAX=7): they cannot be mapped to shards i/n exactly; give --shard i/n");
}

TEST(shard_environment, a_slurm_id_without_the_arrays_other_variables_is_refused) {
  const variables v{{"SLURM_ARRAY_TASK_ID", "3"}};
  EXPECT_EQ(refusal(v), "--shard auto: SLURM_ARRAY_TASK_ID is set (Slurm) but SLURM_ARRAY_TASK_MIN is not");
}

TEST(shard_environment, a_kubernetes_index_takes_its_count_from_auto_n) {
  const variables v{{"JOB_COMPLETION_INDEX", "3"}};
  const auto s = resolve(v, "auto/8");
  expect_shard(s, 4, 8);
  EXPECT_EQ(s.source, "Kubernetes (JOB_COMPLETION_INDEX=3, count 8 from --shard auto/8)");
  EXPECT_EQ(refusal(v), "--shard auto: JOB_COMPLETION_INDEX (Kubernetes) gives no count of shards: give it as --shard auto/N");
  EXPECT_EQ(refusal(v, "auto/3"), "--shard auto/3: JOB_COMPLETION_INDEX=3 is not one of the 3 Kubernetes ids from 0 in steps of 1 "
                                  "(JOB_COMPLETION_INDEX=3, count 3 from --shard auto/3)");
}

TEST(shard_environment, gitlab_counts_from_1) {
  variables v{{"CI_NODE_INDEX", "1"}, {"CI_NODE_TOTAL", "4"}};
  expect_shard(resolve(v), 1, 4);
  v["CI_NODE_INDEX"] = "0";
  EXPECT_EQ(refusal(v), "--shard auto: CI_NODE_INDEX=0 is not one of the 4 GitLab ids from 1 in steps of 1 (CI_NODE_INDEX=0, CI_NODE_TOTAL=4)");
}

TEST(shard_environment, gitlabs_total_alone_is_no_shard) {
  // GitLab sets CI_NODE_TOTAL=1 in every job, parallel or not: only the index says a job is a shard.
  EXPECT_NE(refusal({{"CI_NODE_TOTAL", "1"}}).find("none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, CI_NODE_INDEX"), std::string::npos);
}

TEST(shard_environment, buildkite_counts_from_0) {
  expect_shard(resolve({{"BUILDKITE_PARALLEL_JOB", "4"}, {"BUILDKITE_PARALLEL_JOB_COUNT", "5"}}), 5, 5);
}

TEST(shard_environment, circleci_counts_from_0) { expect_shard(resolve({{"CIRCLE_NODE_INDEX", "0"}, {"CIRCLE_NODE_TOTAL", "2"}}), 1, 2); }

TEST(shard_environment, googletest_sharding_counts_from_0) {
  const auto s = resolve({{"GTEST_SHARD_INDEX", "2"}, {"GTEST_TOTAL_SHARDS", "3"}});
  expect_shard(s, 3, 3);
  EXPECT_EQ(s.source, "GoogleTest (GTEST_SHARD_INDEX=2, GTEST_TOTAL_SHARDS=3)");
}

TEST(shard_environment, nothing_set_is_refused_naming_every_convention) {
  EXPECT_EQ(refusal({}),
            "--shard auto: none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, CI_NODE_INDEX, BUILDKITE_PARALLEL_JOB, CIRCLE_NODE_INDEX, "
            "GTEST_SHARD_INDEX is set: no scheduler's shard to take; give --shard i/n");
}

TEST(shard_environment, two_conventions_that_agree_are_accepted_naming_both) {
  const auto s = resolve({{"CI_NODE_INDEX", "2"}, {"CI_NODE_TOTAL", "3"}, {"GTEST_SHARD_INDEX", "1"}, {"GTEST_TOTAL_SHARDS", "3"}});
  expect_shard(s, 2, 3);
  EXPECT_EQ(s.source, "GitLab (CI_NODE_INDEX=2, CI_NODE_TOTAL=3) and GoogleTest (GTEST_SHARD_INDEX=1, GTEST_TOTAL_SHARDS=3)");
}

TEST(shard_environment, two_conventions_that_disagree_are_refused_naming_both) {
  EXPECT_EQ(refusal({{"CI_NODE_INDEX", "2"}, {"CI_NODE_TOTAL", "3"}, {"GTEST_SHARD_INDEX", "2"}, {"GTEST_TOTAL_SHARDS", "3"}}),
            "--shard auto: GitLab (CI_NODE_INDEX=2, CI_NODE_TOTAL=3) says shard 2/3 but GoogleTest (GTEST_SHARD_INDEX=2, GTEST_TOTAL_SHARDS=3) "
            "says shard 3/3");
}

TEST(shard_environment, a_count_that_disagrees_with_auto_n_is_refused) {
  EXPECT_EQ(refusal({{"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "3"}}, "auto/4"),
            "--shard auto/4: GTEST_TOTAL_SHARDS=3 (GoogleTest) says 3 shards, not 4");
  expect_shard(resolve({{"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "4"}}, "auto/4"), 1, 4);
}

TEST(shard_environment, malformed_values_are_refused_naming_the_variable_and_its_value) {
  EXPECT_EQ(refusal({{"GTEST_SHARD_INDEX", "two"}, {"GTEST_TOTAL_SHARDS", "3"}}), "--shard auto: GTEST_SHARD_INDEX='two' is not a whole number");
  EXPECT_EQ(refusal({{"GTEST_SHARD_INDEX", " 1"}, {"GTEST_TOTAL_SHARDS", "3"}}), "--shard auto: GTEST_SHARD_INDEX=' 1' is not a whole number");
  EXPECT_EQ(refusal({{"GTEST_SHARD_INDEX", "-1"}, {"GTEST_TOTAL_SHARDS", "3"}}), "--shard auto: GTEST_SHARD_INDEX=-1 is below 0");
  EXPECT_EQ(refusal({{"GTEST_SHARD_INDEX", "0"}, {"GTEST_TOTAL_SHARDS", "0"}}), "--shard auto: GTEST_TOTAL_SHARDS=0 is below 1");
  EXPECT_EQ(refusal({{"GTEST_SHARD_INDEX", "3"}, {"GTEST_TOTAL_SHARDS", "3"}}),
            "--shard auto: GTEST_SHARD_INDEX=3 is not one of the 3 GoogleTest ids from 0 in steps of 1 (GTEST_SHARD_INDEX=3, GTEST_TOTAL_SHARDS=3)");
  EXPECT_EQ(refusal({{"GTEST_SHARD_INDEX", "99999999999999999999"}, {"GTEST_TOTAL_SHARDS", "3"}}),
            "--shard auto: GTEST_SHARD_INDEX='99999999999999999999' is not a whole number");
}

TEST(shard_environment, a_malformed_auto_n_is_refused) {
  const variables v{{"JOB_COMPLETION_INDEX", "0"}};
  for (const char* text : {"auto/0", "auto/", "auto/x", "auto/-2"}) {
    EXPECT_EQ(refusal(v, text), std::string("--shard '") + text + "': give auto, or auto/N with N >= 1 the count of shards") << text;
  }
}

}  // namespace
}  // namespace pe::audit
