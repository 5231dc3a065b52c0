// The gate's checks (see checks.hpp): each case is run on the implementation and compared, element by element,
// with the exact reference (MPFR) on the same dtype-rounded inputs, within the error model's bound.
#include "gate/checks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gate/call_policy.hpp"
#include "gate/coverage.hpp"
#include "gate/gate_ops.hpp"
#include "gate/op_io.hpp"
#include "golden/golden_file.hpp"
#include "golden/manifest.hpp"
#include "pe/attention.hpp"
#include "pe/bounded_file.hpp"
#include "pe/error.hpp"
#include "pe/op_schema.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/ulp.hpp"
#include "properties/generators.hpp"
#include "properties/law_support.hpp"
#include "properties/runner.hpp"

namespace pe::gate {

std::string_view verdict_name(verdict v) {
  switch (v) {
    case verdict::pass: return "PASS";
    case verdict::fail: return "FAIL";
    case verdict::unsupported: return "UNSUPPORTED";
    case verdict::skipped: return "SKIPPED";
    case verdict::incomplete: return "INCOMPLETE";
  }
  return "?";
}

void hold_to_coverage(check_result& r) {
  if (r.result != verdict::pass) return;
  std::vector<std::string> why;
  if (r.cases < r.planned) why.push_back(fmt::format("{} of the {} cases asked for were answered", r.cases, r.planned));
  if (!r.never_answered.empty()) why.push_back(fmt::format("never answered: {}", fmt::join(r.never_answered, ", ")));
  if (why.empty()) return;
  r.result = verdict::incomplete;
  const std::string declined = r.declined_ops.empty() ? "" : fmt::format(" ({} declined)", fmt::join(r.declined_ops, ", "));
  r.detail = fmt::format("{}{}{}{}", fmt::join(why, "; "), declined, r.detail.empty() ? "" : "; ", r.detail);
}

namespace {

// The ops the gate exercises for a scheme, the leading one first: every op the scheme lists but
// the reference-only ones (matrix, the laws' view of rotate) and those its descriptor names as
// gate gaps, with the leading op (rotate) ahead of the rest.
std::vector<std::string> ops_for(const spec& s) {
  const auto& gaps = behaviour_of(s).gate_gaps;
  std::vector<std::string> out;
  for (const auto& op : s.info().ops) {
    const bool gap = std::any_of(gaps.begin(), gaps.end(), [&](const auto& g) { return g.first == op; });
    const op_schema* schema = find_op_schema(op);
    if (schema && !schema->reference_only && !gap) out.push_back(op);
  }
  const auto leading = std::find_if(out.begin(), out.end(), [](const std::string& op) { return gate_op_of(op).leads; });
  if (leading != out.end()) std::rotate(out.begin(), leading, leading + 1);
  return out;
}
std::string main_op(const spec& s) {
  const auto ops = ops_for(s);
  return ops.empty() ? "" : ops.front();
}

// The op's real inputs on s (its schema's) rounded to the I/O dtype, as the implementation will see them.
op_inputs rounded_inputs(const std::string& op, const spec& s, op_inputs in, dtype d) {
  for (const tensor_schema* t : inputs_of(op, s, false)) {
    if (t->kind != element_kind::real) continue;
    const input_field field = t->field(in);
    if (auto* const* real = std::get_if<tensor<double>*>(&field)) {
      if (!(*real)->data.empty()) **real = rounded(**real, d);
    }
  }
  return in;
}

// One case's outcome.
struct outcome {
  call_status status = call_status::ok;
  bool process_replaced = false;  // call_result's
  bool within = true;
  double worst_fraction = 0, worst_ulps = 0;
  std::string where, message;
};

outcome run_case(implementation& impl, const std::string& op, const spec& s, const op_inputs& drawn, const error_model& m) {
  outcome r;
  const op_inputs in = rounded_inputs(op, s, drawn, m.io);
  // The implementation first: the exact reference (MPFR) is the expensive part, and an
  // unsupported or failed call does not need it.
  const call_result got = impl.run(op, s.text(), io_inputs(op, s, in, m.io), output_templates(op, s, in, m.io));
  r.status = got.status;
  r.process_replaced = got.process_replaced;
  r.message = got.message;
  if (got.status != call_status::ok) {
    r.within = false;
    return r;
  }
  std::vector<named_tensor<mp_real>> exact;
  {
    mp_precision scope(160);
    exact = run_op<mp_real>(op, s, in);
  }
  std::vector<named_tensor<double>> exact_d;
  for (const auto& e : exact) {
    tensor<double> t(e.value.shape);
    for (std::size_t k = 0; k < t.data.size(); ++k) t.data[k] = e.value.data[k].convert_to<double>();
    exact_d.push_back({e.name, std::move(t)});
  }
  const auto bounds = output_bounds(m, op, s, in, exact_d);
  for (std::size_t o = 0; o < exact.size(); ++o) {
    // Integer outputs (bucket) come back as int64: exact in binary64.
    const float_format& fmt = output_kind(op, s, exact[o].name) == element_kind::real ? dtype_format(m.io) : binary64;
    // Errors in ulps of the output's scale (its largest exact value): a rotation can cancel an
    // element far below its inputs, where ulps at the element itself mean nothing.
    double scale = 0;
    for (const auto& x : exact_d[o].value.data) scale = std::max(scale, std::abs(x));
    const double ulp_of_scale = scale > 0 ? ulp_in_format(scale, fmt) : ulp_in_format(std::ldexp(1.0, fmt.emin), fmt);
    for (std::int64_t e = 0; e < got.outputs[o].elements(); ++e) {
      const double v = got.outputs[o].at(e);
      const mp_real& x = exact[o].value.data[static_cast<std::size_t>(e)];
      const std::string where = fmt::format("{}[{}]", exact[o].name, e);
      // Where the exact value overflows the I/O dtype (an ALiBi bias of 5e5 in fp16), the
      // correctly rounded answer is that infinity, and only it.
      const double exact_in_dtype = round_to_format(exact_d[o].value.data[static_cast<std::size_t>(e)], fmt);
      if (!std::isfinite(exact_in_dtype) || !std::isfinite(v)) {
        if (v == exact_in_dtype) continue;
        r.within = false;
        r.status = call_status::bad_output;
        r.message = fmt::format("{} = {} where the exact value {} is {} in {}", where, v, x.convert_to<double>(), exact_in_dtype, fmt.name);
        return r;
      }
      mp_precision scope(160);
      const double err = mp_real(abs(mp_real(v) - x)).convert_to<double>();
      const double bound = bounds[o][static_cast<std::size_t>(e)];
      const double fraction = bound > 0 ? err / bound : (err > 0 ? INFINITY : 0);
      const double ulps = err / ulp_of_scale;
      if (fraction > r.worst_fraction) {
        r.worst_fraction = fraction, r.where = where;
        r.message = fmt::format("{} = {:.9g}, exact {:.17g}: error {:.3g} ({:.3g} ulp of the output's scale), bound {:.3g}", where, v, x.convert_to<double>(),
                                err, ulps, bound);
      }
      r.worst_ulps = std::max(r.worst_ulps, ulps);
      if (!(fraction <= 1)) r.within = false;
    }
  }
  return r;
}

}  // namespace

std::string minimal_case_line(const gate_options& o, bool shrink_stopped, const std::string& example) {
  if (example.empty()) return "";
  if (shrink_stopped) return fmt::format("\n    minimal case (the smallest found in {} shrinking steps, where shrinking stops): {}", o.shrink_budget, example);
  return "\n    minimal case: " + example;
}

namespace {

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
    if (!c.within) props::fail(fmt::format("{}: {}", c.status == call_status::ok ? "out of bound" : status_name(c.status), c.message));
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
    std::string example;
    for (const auto& [type, value] : result.counterexample) example += fmt::format("{}{}", example.empty() ? "" : "; ", value);
    r.detail += minimal_case_line(o, result.shrink_stopped, example);
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

namespace {

// A golden file of the tree, parsed once into `files`; nothing (and not parsed) when its head
// gives a spec of another scheme than `s`'s.
const golden::golden_file* read_golden(std::map<std::string, golden::golden_file>& files, const std::filesystem::path& dir, const std::string& path,
                                       const spec& s) {
  if (const auto found = files.find(path); found != files.end()) return &found->second;
  const std::string text = read_bounded_file((dir / path).string(), (dir / path).string());
  if (const auto head = golden::read_head(text)) {
    try {
      if (parse_spec(head->spec).scheme() != s.scheme()) return nullptr;
    } catch (const spec_error&) {  // the full parse names the problem
    }
  }
  return &files.emplace(path, golden::parse_golden(text, (dir / path).string())).first->second;
}

}  // namespace

std::vector<check_result> check_golden(implementation& impl, const gate_options& o) {
  const spec s = parse_spec(o.spec);
  // A golden file's result carries its own configuration as the spec: that is what it checked,
  // and its reproduce line runs that file alone.
  const auto result_for = [&](const std::string& check, const std::string& configuration) {
    check_result r{check, configuration};
    r.reproduce = fmt::format("{} --spec {} --golden-scope spec", o.reproduce_prefix, props::shell_quote(configuration));
    return r;
  };
  // run() refused a --golden without MANIFEST.json before the run: reading it here cannot find it missing.
  const std::string manifest_path = (o.golden_dir / "MANIFEST.json").string();
  const auto manifest = golden::parse_manifest(read_bounded_file(manifest_path, manifest_path), manifest_path);
  std::map<std::string, golden::golden_file> unshared;
  auto& files = o.golden_files ? *o.golden_files : unshared;
  // One result per golden file (one configuration of the scheme), so that one failing
  // configuration never hides what the others show.
  std::vector<check_result> out;
  bool already = false;  // some file was run for an earlier spec already
  for (const auto& entry : manifest.files) {
    const golden::golden_file* read = read_golden(files, o.golden_dir, entry.path, s);
    if (!read) continue;
    const golden::golden_file& file = *read;
    const spec fs = parse_spec(file.spec);
    const auto ops = ops_for(fs);
    if (fs.scheme() != s.scheme() || std::find(ops.begin(), ops.end(), file.op) == ops.end()) continue;
    if (o.golden_own_spec_only && fs.text() != s.text()) continue;
    if (o.golden_checked.count(entry.path)) {
      already = true;
      continue;
    }
    auto r = result_for("golden:" + entry.path, fs.text());
    // Cases past the range the implementation declared (--max-pos), and past xPos's scales'
    // reach in a narrow format, where no correct kernel in it can answer, are left out, and said
    // so (tolerance.hpp, drawn_position_limit).
    const std::int64_t scales_reach = drawn_position_limit(fs, o.model, std::numeric_limits<std::int64_t>::max());
    const std::int64_t reach = std::min(scales_reach, o.declared_max_pos);
    coverage reached(o.model.io);
    int beyond = 0;
    for (const auto& c : file.cases) {
      if (o.progress) o.progress("golden", r.cases + 1, static_cast<int>(file.cases.size()));
      const op_inputs in = golden::op_inputs_of(file.op, fs, c, entry.path);
      if (largest_position(in) > reach) {
        ++beyond;
        continue;
      }
      ++r.planned;
      const outcome got = run_case(impl, file.op, fs, in, o.model);
      if (got.status == call_status::unsupported) {
        ++r.unsupported;
        r.declined_ops = {file.op};
        continue;
      }
      reached.answered(in);
      ++r.cases;
      r.worst_ulps = std::max(r.worst_ulps, got.worst_ulps);
      if (got.worst_fraction > r.worst_fraction) r.worst_fraction = got.worst_fraction, r.worst_where = "case " + c.id + ": " + got.message;
      if (!got.within) {
        r.result = verdict::fail;
        r.first_failure_fraction = got.status == call_status::ok ? got.worst_fraction : INFINITY;
        r.detail = fmt::format("case {} ({}): {}: {}", c.id, file.op, got.status == call_status::ok ? "out of bound" : status_name(got.status),
                               got.message);
        break;
      }
    }
    if (r.result != verdict::fail && beyond > 0) {
      r.detail = reach < o.declared_max_pos
                     ? fmt::format("{} of {} cases have a position beyond {}, where the scheme's scales pass the range the gate holds {} kernels to: left out",
                                   beyond, file.cases.size(), reach, dtype_format(o.model.io).name)
                     : fmt::format("{} of {} cases have a position beyond --max-pos {}: left out", beyond, file.cases.size(), reach);
      if (r.cases == 0 && r.unsupported == 0) r.result = verdict::skipped;
    }
    r.top_position = reached.top_answered_position();
    if (r.result != verdict::fail && r.result != verdict::skipped && r.cases == 0) {
      r.result = verdict::unsupported;
      r.detail = fmt::format("{} supports none of the {} cases ({})", impl.name(), file.cases.size() - static_cast<std::size_t>(beyond), file.op);
    }
    hold_to_coverage(r);  // a golden case declined is a hole: every case within reach must be answered
    out.push_back(std::move(r));
  }
  if (out.empty() && !already) {
    auto r = result_for("golden", o.spec);
    r.result = verdict::skipped;
    r.detail = o.golden_own_spec_only ? fmt::format("no golden file has the configuration {} (--golden-scope spec)", o.spec)
                                      : fmt::format("no golden file of {}", s.scheme());
    out.push_back(std::move(r));
  }
  return out;
}

check_result check_determinism(implementation& impl, const gate_options& o) {
  check_result r{"determinism", o.spec};
  const spec s = parse_spec(o.spec);
  const std::string op = main_op(s);
  r.reproduce = fmt::format("{} --spec {} --seed {}", o.reproduce_prefix, props::shell_quote(o.spec), o.seed);
  if (op.empty()) {
    r.result = verdict::skipped;
    r.detail = "no op to repeat";
    return r;
  }
  int answered = 0;       // cases answered ok twice, and compared
  std::string failure;    // the first call that failed (not unsupported): a case not answered is no pass
  constexpr int cases = 10;
  coverage reached(o.model.io);
  call_policy calls(cases);  // patience: as many unsupported answers as there are cases
  const auto result = props::run_rapidcheck({cases, o.seed, o.shrink_budget}, [&] {
    calls.before_call();
    const op_inputs in = rounded_inputs(op, s, gate_op_of(op).draw(s, o.max_pos, o.model.io), o.model.io);
    reached.drawn(in);
    const auto templates = output_templates(op, s, in, o.model.io);
    const auto inputs = io_inputs(op, s, in, o.model.io);
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

}  // namespace pe::gate
