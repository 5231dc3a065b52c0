// One RapidCheck run in pecheck's terms (see rapidcheck_run.hpp).
//
// RapidCheck's public API runs a property with rc::check(), which returns only a bool, prints its
// verdict on stderr and takes its seed and case count from RC_PARAMS, read once per process. The
// gate and the laws need a seed and a count per run, the cases run, the shrunk counterexample and
// the classes, so this file, and no other, uses rc::detail: checkTestable() with TestParams, the
// TestResult variant it returns, printResultMessage() for RapidCheck's own account, and
// configuration() to load the configuration quietly. The failing case's message never comes from
// RapidCheck's text: fail() keeps it aside as the case runs.
#include "properties/rapidcheck_run.hpp"

#include <cstdio>
#include <exception>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

#include <rapidcheck.h>
#include <rapidcheck/detail/Configuration.h>

namespace pe::props {
namespace {

// The messages given to fail() in the run under way. RapidCheck runs the minimal case once more
// after shrinking; when that run fails, its message is the last. When it does not (a flaky
// implementation), the last failing run was the minimal case's still: every failing shrink is taken.
struct messages {
  bool any = false;
  std::string last;
  int shrink_steps = 0;  // cases run since the first failure: shrinking steps
  int shrink_budget = 0;  // run_options::shrink_budget
};
thread_local messages* current = nullptr;

// RapidCheck loads its configuration on first use and announces its random default seed on
// stderr; every run here passes its own seed, so load it once with stderr muted.
void load_rapidcheck_quietly() {
  static const bool loaded = [] {
    std::fflush(stderr);
    const int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, 2);
    rc::detail::configuration();
    if (saved >= 0) dup2(saved, 2), close(saved);
    if (null >= 0) close(null);
    return true;
  }();
  (void)loaded;
}

std::string account_of(const rc::detail::TestResult& result) {
  std::ostringstream text;
  rc::detail::printResultMessage(result, text);
  return text.str();
}

run_outcome outcome_of(const rc::detail::TestResult& result, const messages& said) {
  run_outcome out;
  if (result.template is<rc::detail::SuccessResult>()) {
    const auto& ok = result.template get<rc::detail::SuccessResult>();
    out.cases = ok.numSuccess;
    for (const auto& [tags, count] : ok.distribution)
      for (const auto& tag : tags) {  // RapidCheck shows string tags quoted
        const bool quoted = tag.size() >= 2 && tag.front() == '"' && tag.back() == '"';
        out.classes[quoted ? tag.substr(1, tag.size() - 2) : tag] += count;
      }
    return out;
  }
  out.account = account_of(result);
  if (result.template is<rc::detail::FailureResult>()) {
    const auto& bad = result.template get<rc::detail::FailureResult>();
    out.verdict = run_verdict::failed;
    out.cases = bad.numSuccess;
    out.message = said.any ? said.last : bad.description;
    out.counterexample = bad.counterExample;
  } else if (result.template is<rc::detail::GaveUpResult>()) {
    const auto& gave_up = result.template get<rc::detail::GaveUpResult>();
    out.verdict = run_verdict::gave_up;
    out.cases = gave_up.numSuccess;
    out.message = gave_up.description;
  } else {
    out.verdict = run_verdict::error;
    out.message = result.template get<rc::detail::Error>().description;
  }
  return out;
}

}  // namespace

void fail(const std::string& message) {
  if (current) current->any = true, current->last = message;
  RC_FAIL(message);
}

run_outcome run_rapidcheck(const run_options& options, const std::function<void()>& property) {
  load_rapidcheck_quietly();
  messages said;
  said.shrink_budget = options.shrink_budget;
  // A run started inside another's case keeps its own messages, and gives the outer run back its own.
  struct scope {
    messages* outer;
    explicit scope(messages* own) : outer(std::exchange(current, own)) {}
    ~scope() { current = outer; }
  } in_this_run(&said);
  rc::detail::TestParams params;
  params.seed = options.seed;
  params.maxSuccess = options.cases;
  params.maxSize = 100;
  rc::detail::TestMetadata metadata;
  const auto result = rc::detail::checkTestable(
      [&] {
        // Past the budget, each shrink is discarded before it draws: RapidCheck takes a discarded
        // shrink as not failing, so the smallest failing case so far stays the minimal one. Before
        // it draws, because a case whose vectors hold thousands of drawn values costs as much to
        // draw as to call (discarding after the draw made one mutant's run 100 s instead of 56 s).
        // Its final rerun of that case is discarded too; the counterexample still shows the values
        // that case drew, which RapidCheck keeps.
        if (said.any && ++said.shrink_steps > said.shrink_budget && said.shrink_budget > 0) RC_DISCARD("past the shrink budget");
        try {
          property();
        } catch (const rc::GenerationFailure&) {
          throw;  // RapidCheck's own: it discards the case
        } catch (const std::exception& e) {
          fail(e.what());
        }
      },
      metadata, params);
  auto out = outcome_of(result, said);
  out.shrink_steps = said.shrink_steps;
  out.shrink_stopped = said.shrink_budget > 0 && said.shrink_steps > said.shrink_budget;
  return out;
}

}  // namespace pe::props
