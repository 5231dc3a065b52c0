// One RapidCheck run in pecheck's terms: the only code that reads RapidCheck's result (see rapidcheck_run.cpp).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pe::props {

struct run_options {
  int cases = 100;
  std::uint64_t seed = 20261129;  // fixed, so a run is repeatable; --seed changes it
  // Shrinking steps (cases run after the first failure) after which the rest are discarded before
  // they draw, so that a body whose cases cost a plugin call stops calling; 0: no limit.
  int shrink_budget = 0;
};

enum class run_verdict { passed, failed, gave_up, error };

// What a run came to.
struct run_outcome {
  run_verdict verdict = run_verdict::passed;
  int cases = 0;  // cases that passed (before the failure, for failed, and before giving up)
  // failed: the minimal case's message, as given to fail() (RapidCheck's description where no case
  // called fail()); gave_up, error: RapidCheck's reason.
  std::string message;
  std::vector<std::pair<std::string, std::string>> counterexample;  // failed: (type, value) per drawn value, in drawing order
  std::map<std::string, int> classes;  // passed: RC_CLASSIFY tags, unquoted -> cases
  std::string account;  // not passed: RapidCheck's own account of the run, as its runner would print it
  int shrink_steps = 0;  // cases run after the first failure (the final rerun of the minimal case included)
  // Shrinking went past the budget: the message and the counterexample are those of the smallest
  // failing case found within it.
  bool shrink_stopped = false;
};

// Fails the running case with `message`, which the outcome carries as it is: RapidCheck's own
// description wraps it in a file, a line and the expression, and is never read back.
[[noreturn]] void fail(const std::string& message);

// Runs one RapidCheck property with the options' cases and seed, RapidCheck's start-up line kept
// off stderr. The body draws with *gen, discards with RC_DISCARD and fails with fail() (not
// RC_FAIL or RC_ASSERT, whose text would not reach the outcome); an exception escaping it fails
// its case with the exception's what() as the message.
run_outcome run_rapidcheck(const run_options& options, const std::function<void()>& property);

}  // namespace pe::props
