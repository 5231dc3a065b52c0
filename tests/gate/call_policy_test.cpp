// Tests for src/gate/call_policy.hpp under a real RapidCheck run: a fatal call stops the calls, shrinking
// included, and names the cause; unsupported answers are discarded, and patience runs out only with none supported.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "gate/call_policy.hpp"
#include "properties/rapidcheck_run.hpp"

namespace pe::gate {
namespace {

using props::run_verdict;

// A check's body: asks the policy, then "calls" the implementation, which answers `answer(call)`.
template <class Answer>
props::run_outcome run_calls(call_policy& policy, int& calls, Answer answer, int cases = 20) {
  return props::run_rapidcheck({.cases = cases, .seed = 5}, [&] {
    const int size = *rc::gen::inRange(0, 100);  // something to shrink
    policy.before_call();
    const call_status status = answer(++calls, size);
    policy.answered(status, std::string(status_name(status)) + ": call " + std::to_string(calls));
    policy.supported();
    if (status != call_status::ok) props::fail("the call failed");
  });
}

TEST(call_policy, a_fatal_call_is_the_last_one_made_and_its_cause_is_kept) {
  call_policy policy(20);
  int calls = 0;
  const auto out = run_calls(policy, calls, [](int call, int) { return call == 4 ? call_status::crashed : call_status::ok; });
  ASSERT_EQ(out.verdict, run_verdict::failed);
  EXPECT_EQ(calls, 4);  // no shrinking step called it again
  EXPECT_EQ(out.cases, 3);
  EXPECT_TRUE(policy.fatal());
  EXPECT_EQ(policy.cause(), "crashed: call 4");
}

TEST(call_policy, a_failure_that_is_not_fatal_leaves_shrinking_free_to_call) {
  call_policy policy(20);
  int calls = 0;
  const auto out = run_calls(policy, calls, [](int, int size) { return size >= 10 ? call_status::error : call_status::ok; }, 100);
  ASSERT_EQ(out.verdict, run_verdict::failed);
  EXPECT_FALSE(policy.fatal());
  EXPECT_EQ(out.counterexample.at(0).second, "10");  // shrunk by calling again
}

TEST(call_policy, unsupported_answers_are_discarded_and_calls_stop_after_patience) {
  call_policy policy(5);
  int calls = 0;
  const auto out = run_calls(policy, calls, [](int, int) { return call_status::unsupported; });
  EXPECT_EQ(out.verdict, run_verdict::gave_up);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(policy.unsupported(), 5);
  EXPECT_FALSE(policy.fatal());
}

TEST(call_policy, patience_does_not_stop_an_op_that_answered) {
  call_policy policy(2);
  int calls = 0;
  // The first call answers; every other is declined: none is a pass or a failure, and calls go on.
  const auto out = run_calls(policy, calls, [](int call, int) { return call == 1 ? call_status::ok : call_status::unsupported; });
  EXPECT_EQ(out.verdict, run_verdict::gave_up);
  EXPECT_EQ(out.cases, 1);
  EXPECT_GT(policy.unsupported(), 2);
  EXPECT_EQ(calls, policy.unsupported() + 1);
}

TEST(call_policy, note_keeps_only_a_fatal_cause) {
  call_policy policy(1);
  policy.note(call_status::error, "error: no");
  policy.note(call_status::bad_output, "bad output: no");
  EXPECT_FALSE(policy.fatal());
  policy.note(call_status::timed_out, "timed out: first");
  policy.note(call_status::out_of_bounds, "wrote outside an output: second");
  EXPECT_EQ(policy.cause(), "timed out: first");
}

}  // namespace
}  // namespace pe::gate
