// The gate's call policy (see call_policy.hpp).
#include "gate/call_policy.hpp"

#include <rapidcheck.h>

namespace pe::gate {

void call_policy::before_call() const {
  if (fatal()) RC_DISCARD("an earlier call failed fatally");
  if (unsupported_ >= patience_ && !supported_) RC_DISCARD("unsupported");
}

void call_policy::answered(call_status status, const std::string& what, bool process_replaced) {
  note(status, what, process_replaced);
  if (status == call_status::unsupported) {
    ++unsupported_;
    RC_DISCARD(what);
  }
}

void call_policy::note(call_status status, const std::string& what, bool process_replaced) {
  // process_replaced is only ever set on a failure (call_result's contract, wire.cpp sets it).
  if ((is_fatal(status) || process_replaced) && cause_.empty()) cause_ = what;
}

}  // namespace pe::gate
