// What a call's answer does to the check that made it: the one rule for conformance, determinism and the laws.
#pragma once
#include <string>

#include "gate/implementation.hpp"

namespace pe::gate {

// Kept by a check across its RapidCheck run, shrinking included; the check calls before_call()
// before each call of the implementation and answered() (or note()) with what came back.
class call_policy {
 public:
  // patience: unsupported answers, none supported, after which the op is taken as unsupported.
  explicit call_policy(int patience) : patience_(patience) {}

  // Discards the case uncalled (RC_DISCARD) after a fatal call: a crash, a hang, a stray write or
  // a failure that replaced the process would repeat (a hang at the cost of the whole time limit
  // each time, a broken wire answer at the cost of a restart), and shrinking would replay it, so
  // the case that did it stays the counterexample and its cause the report. And
  // after `patience` unsupported answers with none supported: the op is taken as unsupported (not
  // sooner: RapidCheck's first cases are its smallest, which a kernel may well decline).
  void before_call() const;

  // note(), and an unsupported answer counted and its case discarded (RC_DISCARD): never a pass or
  // a failure, so it cannot turn a violation found on another case into UNSUPPORTED.
  void answered(call_status status, const std::string& what, bool process_replaced = false);
  // Keeps a fatal status's cause, `what` ("crashed: killed by signal 11"), or that of a failure
  // that replaced the process (call_result::process_replaced), for the report; no later call is
  // made. Any other status is the check's own business.
  void note(call_status status, const std::string& what, bool process_replaced = false);
  // The check could use an answer: the op is supported, and patience no longer applies.
  void supported() { supported_ = true; }

  bool fatal() const { return !cause_.empty(); }
  const std::string& cause() const { return cause_; }
  int unsupported() const { return unsupported_; }
  bool any_supported() const { return supported_; }  // some answer was usable (supported() was called)

 private:
  int patience_;
  int unsupported_ = 0;
  bool supported_ = false;
  std::string cause_;
};

}  // namespace pe::gate
