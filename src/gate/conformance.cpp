// conformance.OP (see checks.hpp): RapidCheck cases of each op the scheme has, each run on the implementation and
// compared, element by element, with the exact reference (MPFR) on the same dtype-rounded inputs, within the error model's bound.
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gate/call_policy.hpp"
#include "gate/check_support.hpp"
#include "gate/checks.hpp"
#include "gate/coverage.hpp"
#include "gate/gate_ops.hpp"
#include "gate/op_io.hpp"
#include "pe/op_schema.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/rope.hpp"
#include "properties/law_support.hpp"
#include "properties/runner.hpp"

namespace pe::gate {
namespace {

// The case's inputs as run_case hands them to the implementation (rounded to the run's dtypes), each
// by its name in the op table and its shape: "x [1, 1, 64]" = "[0, 0.000244141, ...]", every value.
props::drawn_case handed_inputs(const std::string& op, const spec& s, const op_inputs& drawn, const error_model& m) {
  props::drawn_case out;
  for (const auto& t : io_inputs(op, s, rounded_inputs(op, s, drawn, m.io, m.tables), m.io, m.tables)) {
    std::vector<double> values;
    for (std::int64_t e = 0; e < t.elements(); ++e) values.push_back(t.at(e));
    out.emplace_back(fmt::format("{} {}", t.name, t.shape), fmt::format("[{}]", fmt::join(values, ", ")));
  }
  return out;
}

// Conformance of one op: RapidCheck cases (inv_freq has no inputs: one case) against the exact reference.
check_result conformance_of(implementation& impl, const gate_options& o, const spec& s, const std::string& op) {
  check_result r{"conformance." + op, o.spec};
  r.reproduce = fmt::format("{} --spec {} --seed {} --cases {}", o.reproduce_prefix, props::shell_quote(o.spec), o.seed, o.cases);
  if (const auto unfixed = gate_op_of(op).unfixed_length; !unfixed.empty() && reads_call_length(s)) {
    r.result = verdict::skipped;
    r.detail = fmt::format("the spec's frequencies read the call's length (no seq_len in its scaling), which {} does not fix; pin seq_len to check it",
                           unfixed);
    return r;
  }
  // An op without call inputs (inv_freq) has one case: every draw is the same.
  const int cases = inputs_of(op, s, false).empty() ? 1 : o.cases;
  int tried = 0;  // cases drawn so far, shrinking included (progress only)
  int answered = 0;
  outcome worst;
  coverage reached(o.model.io);
  call_policy calls(cases);  // patience: as many unsupported answers as there are cases
  // The inputs of the last failing case, as the implementation was handed them: shrinking only
  // keeps a smaller case that fails, so the last one is the minimal case.
  props::drawn_case last_failing;
  const auto result = props::run_rapidcheck({cases, o.seed, o.shrink_budget}, [&] {
    calls.before_call();
    if (o.progress) o.progress(r.check, ++tried, cases);
    const op_inputs in = gate_op_of(op).draw(s, o.max_pos, o.model.io);
    reached.drawn(in);
    const outcome c = run_case(impl, op, s, in, o.model);
    calls.answered(c.status, fmt::format("{}: {}", status_name(c.status), c.message), c.process_replaced);
    calls.supported();
    reached.answered(in);
    ++answered;
    if (c.status == call_status::ok && c.worst_fraction > worst.worst_fraction) worst = c;
    worst.worst_ulps = std::max(worst.worst_ulps, c.worst_ulps);
    if (!c.within && r.first_failure_fraction == 0) r.first_failure_fraction = c.status == call_status::ok ? c.worst_fraction : INFINITY;
    if (!c.within) {
      last_failing = handed_inputs(op, s, in, o.model);
      props::fail(fmt::format("{}: {}", c.status == call_status::ok ? "out of bound" : status_name(c.status), c.message));
    }
  });
  r.unsupported = calls.unsupported();
  r.planned = cases;
  if (r.unsupported > 0) r.declined_ops = {op};
  r.never_answered = reached.never_answered();
  r.top_position = reached.top_answered_position();
  if (answered == 0 && r.unsupported > 0) {
    r.result = verdict::unsupported;
    r.detail = fmt::format("{} answered unsupported for {} {}", impl.name(), op, o.spec);
    return r;
  }
  r.worst_fraction = worst.worst_fraction;
  r.worst_ulps = worst.worst_ulps;
  r.worst_where = worst.message;
  if (result.verdict == props::run_verdict::passed || result.verdict == props::run_verdict::gave_up) {
    // A give-up (too many cases declined) answered fewer cases than asked: INCOMPLETE, never a pass.
    r.cases = answered;
    hold_to_coverage(r);
    return r;
  }
  r.result = verdict::fail;
  if (calls.fatal()) {  // the later cases (shrinking included) were discarded uncalled: the case that did it is the story
    r.cases = result.verdict == props::run_verdict::failed ? result.cases : answered - 1;
    r.detail = calls.cause();
  } else if (result.verdict == props::run_verdict::failed) {
    r.cases = result.cases;
    r.detail = result.message;
    r.minimal_case = last_failing;
    r.detail += minimal_case_line(o, result.shrink_stopped, r.minimal_case);
    // diagnose names, in one sentence, the convention the implementation computes instead.
    if (gate_op_of(op).probe && !o.diagnose_prefix.empty())
      r.diagnose = fmt::format("{} --spec {} --op {}", o.diagnose_prefix, props::shell_quote(o.spec), op);
  } else {
    r.detail = result.account;
  }
  return r;
}

}  // namespace

std::vector<check_result> check_conformance(implementation& impl, const gate_options& o) {
  const spec s = parse_spec(o.spec);
  std::vector<check_result> out;
  for (const auto& op : ops_for(s)) out.push_back(conformance_of(impl, o, s, op));
  if (out.empty()) {
    check_result r{"conformance.attend", o.spec};
    r.result = verdict::skipped;
    const auto& gaps = behaviour_of(s).gate_gaps;
    r.detail = gaps.empty() ? fmt::format("{} has no op the gate drives", s.scheme())
                            : fmt::format("{} is checked through {}, and {}", s.scheme(), gaps.front().first, gaps.front().second);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace pe::gate
