// determinism (see checks.hpp): the leading op's cases (or the first op answered), each called twice, the outputs compared bit for bit.
#include <fmt/format.h>

#include "gate/call_policy.hpp"
#include "gate/check_support.hpp"
#include "gate/checks.hpp"
#include "gate/coverage.hpp"
#include "gate/gate_ops.hpp"
#include "gate/op_io.hpp"
#include "properties/law_support.hpp"
#include "properties/runner.hpp"

namespace pe::gate {

namespace {

// The check on one op: its cases, each called twice.
check_result determinism_on(implementation& impl, const gate_options& o, const spec& s, const std::string& op) {
  check_result r{"determinism", o.spec};
  r.reproduce = fmt::format("{} --spec {} --seed {}", o.reproduce_prefix, props::shell_quote(o.spec), o.seed);
  int answered = 0;       // cases answered ok twice, and compared
  std::string failure;    // the first call that failed (not unsupported): a case not answered is no pass
  constexpr int cases = 10;
  coverage reached(o.model.io);
  call_policy calls(cases);  // patience: as many unsupported answers as there are cases
  const auto result = props::run_rapidcheck({cases, o.seed, o.shrink_budget}, [&] {
    calls.before_call();
    const op_inputs in = rounded_inputs(op, s, gate_op_of(op).draw(s, o.max_pos, o.model.io), o.model.io, o.model.tables);
    reached.drawn(in);
    const auto templates = output_templates(op, s, in, o.model.io);
    const auto inputs = io_inputs(op, s, in, o.model.io, o.model.tables);
    const auto first = impl.run(op, s.text(), inputs, templates);
    const std::string first_said = fmt::format("{}: {}", status_name(first.status), first.message);
    calls.answered(first.status, first_said, first.process_replaced);
    if (first.status != call_status::ok) {  // conformance reports the failure itself; here it is a case not answered
      if (failure.empty()) failure = first_said;
      RC_DISCARD("the call failed");
    }
    const auto second = impl.run(op, s.text(), inputs, templates);
    if (second.status != call_status::ok) {
      // The same case answered ok a moment ago: any other answer, unsupported too, is a difference.
      const std::string second_said = fmt::format("{}: {}", status_name(second.status), second.message);
      calls.note(second.status, second_said, second.process_replaced);
      props::fail("the same case answered ok, then " + second_said);
    }
    calls.supported();
    reached.answered(in);
    ++answered;
    for (std::size_t k = 0; k < first.outputs.size(); ++k)
      if (first.outputs[k].bytes != second.outputs[k].bytes) props::fail(fmt::format("two runs of the same case differ in output {}", first.outputs[k].name));
  });
  r.unsupported = calls.unsupported();
  r.planned = cases;
  if (r.unsupported > 0) r.declined_ops = {op};
  r.never_answered = reached.never_answered();
  r.top_position = reached.top_answered_position();
  if (answered == 0 && result.verdict != props::run_verdict::failed) {
    if (!failure.empty()) {
      r.result = verdict::fail;
      r.detail = "no case was answered: " + failure;
    } else {
      r.result = verdict::unsupported;
    }
    return r;
  }
  if (result.verdict == props::run_verdict::gave_up) {  // too many unsupported or failed cases: the answered ones repeated
    r.cases = answered;
    if (!failure.empty()) r.detail = fmt::format("cases whose call failed were left out, the first: {}", failure);
  } else if (result.verdict != props::run_verdict::passed) {
    r.result = verdict::fail;
    r.detail = result.message.substr(0, result.message.find('\n'));  // one line: the implementation's message may hold more
  } else {
    r.cases = answered;
  }
  hold_to_coverage(r);
  return r;
}

}  // namespace

// The leading op's cases; where the implementation declines every one of them, the next op it
// answers (a kernel handed its tables serves apply_tables alone).
check_result check_determinism(implementation& impl, const gate_options& o) {
  const spec s = parse_spec(o.spec);
  const auto ops = ops_for(s);
  if (ops.empty()) {
    check_result r{"determinism", o.spec};
    r.result = verdict::skipped;
    r.detail = "no op to repeat";
    return r;
  }
  check_result first = determinism_on(impl, o, s, ops.front());
  if (first.result != verdict::unsupported) return first;
  for (std::size_t k = 1; k < ops.size(); ++k) {
    check_result r = determinism_on(impl, o, s, ops[k]);
    if (r.result == verdict::unsupported) continue;
    r.detail = fmt::format("on {}: {} was declined{}{}", ops[k], ops.front(), r.detail.empty() ? "" : "; ", r.detail);
    return r;
  }
  return first;
}

}  // namespace pe::gate
