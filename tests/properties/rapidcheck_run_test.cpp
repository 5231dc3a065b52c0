// Tests for properties/rapidcheck_run.hpp: what a RapidCheck run that passes, fails (shrunk), gives up or throws comes to.
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "properties/rapidcheck_run.hpp"

namespace pe::props {
namespace {

TEST(rapidcheck_run, a_property_that_holds_passes_every_case_with_its_classes) {
  const auto out = run_rapidcheck({.cases = 25, .seed = 3}, [] {
    const int x = *rc::gen::inRange(0, 10);
    RC_CLASSIFY(x < 5, "small");
  });
  EXPECT_EQ(out.verdict, run_verdict::passed);
  EXPECT_EQ(out.cases, 25);
  EXPECT_TRUE(out.message.empty());
  EXPECT_GT(out.classes.at("small"), 0);  // unquoted, as RC_CLASSIFY was given it
  EXPECT_LT(out.classes.at("small"), 25);
}

// The message is the minimal case's own, not the first failing case's, and the counterexample
// is the shrunk value.
TEST(rapidcheck_run, a_failure_carries_the_shrunk_case_and_its_own_message) {
  int first_failure = -1;
  const auto out = run_rapidcheck({.cases = 200, .seed = 3}, [&] {
    const int x = *rc::gen::inRange(0, 1000);
    if (x >= 100) {
      if (first_failure < 0) first_failure = x;
      fail("x = " + std::to_string(x));
    }
  });
  ASSERT_EQ(out.verdict, run_verdict::failed);
  ASSERT_GT(first_failure, 100);  // so that the shrunk case's message differs from the first one's
  EXPECT_EQ(out.message, "x = 100");
  ASSERT_EQ(out.counterexample.size(), 1u);
  EXPECT_EQ(out.counterexample[0].second, "100");
  EXPECT_GE(out.cases, 0);
  EXPECT_FALSE(out.account.empty());
}

// A case that failed once and passes when RapidCheck runs it again (a flaky implementation):
// the message is still the one its failing run gave.
TEST(rapidcheck_run, a_minimal_case_that_passes_when_run_again_keeps_its_message) {
  int runs = 0;
  const auto out = run_rapidcheck({.cases = 10, .seed = 3}, [&] {
    if (++runs == 3) fail("only the third run fails");
  });
  ASSERT_EQ(out.verdict, run_verdict::failed);
  EXPECT_EQ(out.message, "only the third run fails");
  EXPECT_EQ(out.cases, 2);
}

// A failure whose shrinking runs long stops at the budget: no more than the budget's cases run
// after the first failure (and the discarded rerun), the message is the smallest failing case's
// found by then, and the same failure shrinks all the way without a budget.
TEST(rapidcheck_run, shrinking_stops_at_its_budget) {
  const auto body = [](int& runs_after_failure, bool& failed) {
    return [&] {
      if (failed) ++runs_after_failure;
      const auto v = *rc::gen::container<std::vector<int>>(200, rc::gen::inRange(0, 1000));
      long sum = 0;
      for (const int x : v) sum += x;
      if (sum >= 50) {
        failed = true;
        fail("sum = " + std::to_string(sum));
      }
    };
  };
  int unlimited_runs = 0, limited_runs = 0;
  bool unlimited_failed = false, limited_failed = false;
  const auto unlimited = run_rapidcheck({.cases = 10, .seed = 3}, body(unlimited_runs, unlimited_failed));
  const auto limited = run_rapidcheck({.cases = 10, .seed = 3, .shrink_budget = 50}, body(limited_runs, limited_failed));
  ASSERT_EQ(unlimited.verdict, run_verdict::failed);
  ASSERT_EQ(limited.verdict, run_verdict::failed);
  EXPECT_GT(unlimited_runs, 200);  // shrinking 200 values takes more than 50 steps, or this test shows nothing
  EXPECT_FALSE(unlimited.shrink_stopped);
  EXPECT_EQ(unlimited.message, "sum = 50");
  EXPECT_EQ(limited_runs, 50);
  EXPECT_TRUE(limited.shrink_stopped);
  EXPECT_TRUE(limited.message.starts_with("sum = "));
  EXPECT_GT(std::stol(limited.message.substr(6)), 50);  // not shrunk all the way
  // The counterexample is the case the message came from (RapidCheck keeps the values it drew).
  ASSERT_EQ(limited.counterexample.size(), 1u);
  long shown = 0;
  std::string number;
  for (const char c : limited.counterexample[0].second + ",") {
    if (c >= '0' && c <= '9') number += c;
    else if (!number.empty()) shown += std::stol(number), number.clear();
  }
  EXPECT_EQ("sum = " + std::to_string(shown), limited.message);
}

TEST(rapidcheck_run, a_property_that_discards_everything_gives_up) {
  const auto out = run_rapidcheck({.cases = 10, .seed = 3}, [] { RC_DISCARD("never applies"); });
  EXPECT_EQ(out.verdict, run_verdict::gave_up);
  EXPECT_EQ(out.cases, 0);
  EXPECT_NE(out.message.find("never applies"), std::string::npos);  // RapidCheck's reason, passed on
}

TEST(rapidcheck_run, an_exception_fails_its_case_with_its_message) {
  const auto out = run_rapidcheck({.cases = 10, .seed = 3}, [] { throw std::runtime_error("the reference refused"); });
  ASSERT_EQ(out.verdict, run_verdict::failed);
  EXPECT_EQ(out.message, "the reference refused");
  EXPECT_EQ(out.cases, 0);
}

// A run inside another's case (a law that runs RapidCheck) neither takes nor hides the outer message.
TEST(rapidcheck_run, a_nested_run_keeps_its_own_message) {
  std::string inner;
  const auto out = run_rapidcheck({.cases = 5, .seed = 3}, [&] {
    inner = run_rapidcheck({.cases = 5, .seed = 4}, [] { fail("inner"); }).message;
    fail("outer");
  });
  EXPECT_EQ(inner, "inner");
  EXPECT_EQ(out.message, "outer");
}

}  // namespace
}  // namespace pe::props
