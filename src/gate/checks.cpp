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
#include "gate/op_io.hpp"
#include "golden/golden_file.hpp"
#include "golden/manifest.hpp"
#include "pe/attention.hpp"
#include "pe/bounded_file.hpp"
#include "pe/error.hpp"
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

// The ops the gate exercises for a scheme, the main one first: every op the scheme lists but
// matrix (the laws' view of rotate) and those its descriptor names as gate gaps, with rotate
// ahead of inv_freq for rotary schemes.
std::vector<std::string> ops_for(const spec& s) {
  const auto& gaps = behaviour_of(s).gate_gaps;
  std::vector<std::string> out;
  for (const auto& op : s.info().ops) {
    const bool gap = std::any_of(gaps.begin(), gaps.end(), [&](const auto& g) { return g.first == op; });
    if (op != "matrix" && !gap) out.push_back(op);
  }
  const auto rotate = std::find(out.begin(), out.end(), "rotate");
  if (rotate != out.end()) std::rotate(out.begin(), rotate, rotate + 1);
  return out;
}
std::string main_op(const spec& s) {
  const auto ops = ops_for(s);
  return ops.empty() ? "" : ops.front();
}

// The op's real inputs rounded to the I/O dtype, as the implementation will see them.
op_inputs rounded_inputs(const std::string& op, op_inputs in, dtype d) {
  if (op == "rotate") in.x = rounded(in.x, d);
  if (op == "attend")
    for (auto* t : {&in.attend.q, &in.attend.k, &in.attend.v, &in.attend.x, &in.attend.wq, &in.attend.wk, &in.attend.wv})
      if (!t->data.empty()) *t = rounded(*t, d);
  return in;
}

// Positions of a table-backed encoding (learned: max_len rows, normalized: length) folded into it.
void keep_within_table(const spec& s, std::vector<std::int64_t>& pos) {
  const auto limit = position_limit(s);
  if (!limit) return;
  for (auto& p : pos) p %= *limit;
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
  const op_inputs in = rounded_inputs(op, drawn, m.io);
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
  const float_format& fmt = op == "bucket" ? binary64 : dtype_format(m.io);
  for (std::size_t o = 0; o < exact.size(); ++o) {
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

// Values at the edges of the I/O dtype in about half of rotate's x: signed zeros, subnormals (the
// smallest, the largest, others), the smallest normal, and large magnitudes 2^k (1 + f) with 2^k the
// largest power of two up to 2^(emax - 2) at which every exact output stays within 2^emax, half the
// dtype's largest: a spec's attention factor or xPos's scale grows a pair, and past that a correct
// kernel may overflow in between (a product, a factor applied before the turn), which the spec does
// not rule out. Every value drawn is exact in the dtype (proofs/gate_tolerance.md, "Underflow").
void put_edge_values(const std::string& op, const spec& s, op_inputs& in, dtype io) {
  const float_format& f = dtype_format(io);
  const double tiny = subnormal_spacing(io), smallest_normal = lowest_normal(io);
  const std::int64_t steps = std::int64_t{1} << (f.precision - 1);  // the significand's fraction steps
  op_inputs large = in;  // the large values alone, at scale 1, to measure their growth
  std::fill(large.x.data.begin(), large.x.data.end(), 0.0);
  std::vector<std::size_t> large_at;
  for (std::size_t e = 0; e < in.x.data.size(); ++e) {
    if (!*rc::gen::arbitrary<bool>()) continue;
    const double sign = *rc::gen::element(1.0, -1.0);
    switch (*rc::gen::inRange(0, 4)) {
      case 0: in.x.data[e] = sign * 0.0; break;
      case 1: in.x.data[e] = sign * tiny * static_cast<double>(*rc::gen::inRange<std::int64_t>(1, steps)); break;
      case 2: in.x.data[e] = sign * *rc::gen::element(tiny, smallest_normal - tiny, smallest_normal); break;
      default:
        large.x.data[e] = sign * (1 + static_cast<double>(*rc::gen::inRange<std::int64_t>(0, steps)) / static_cast<double>(steps));
        large_at.push_back(e);
    }
  }
  if (large_at.empty()) return;
  // The rotation is linear in x: the large values' outputs grow with their scale.
  double growth = 0;
  for (const auto& y : run_op<double>(op, s, large))
    for (const double v : y.value.data) growth = std::max(growth, std::abs(v));
  int k = f.emax - 2;
  if (growth > 0) k = std::min(k, static_cast<int>(std::floor(std::log2(std::ldexp(1.0, f.emax) / growth))));
  for (const auto e : large_at) in.x.data[e] = std::ldexp(large.x.data[e], k);
}

// The drawn inputs of one conformance case for op on spec s, its real values for the I/O dtype io.
op_inputs draw_inputs(const std::string& op, const spec& s, std::int64_t max_pos, dtype io) {
  op_inputs in;
  in.pos_axes = position_axes(s);
  const auto tokens = *rc::gen::inRange<std::int64_t>(1, 9);
  if (op == "rotate" || op == "encode" || op == "scale") {
    for (std::int64_t e = 0; e < tokens * in.pos_axes; ++e) in.pos.push_back(*props::gen_position(max_pos));
    RC_CLASSIFY(*std::max_element(in.pos.begin(), in.pos.end()) >= (std::int64_t{1} << 24), "p>=2^24");
  }
  if (op == "rotate" || op == "scale") {
    // A third of the cases put one token on a position where the scheme changes behaviour (a
    // call length at original_max +- 1, a band edge, a ramp end, a temperature block's first
    // position), the others at or below it, so that a switch taken one token early (>= for >) shows.
    std::vector<std::int64_t> edges;
    for (const auto p : boundary_positions(s))
      if (p <= max_pos) edges.push_back(p);
    if (!edges.empty() && *rc::gen::inRange(0, 3) == 0) {
      const auto edge = *rc::gen::elementOf(edges);
      for (auto& p : in.pos) p = std::min(p, edge);
      in.pos[*rc::gen::inRange<std::size_t>(0, in.pos.size())] = edge;
      RC_CLASSIFY(true, "boundary position");
    }
  }
  if (op == "encode") keep_within_table(s, in.pos);
  if (op == "rotate") {
    // Mostly 1-4 heads; one case in eight 5-17, past a group of 8 heads and into the next, as
    // kernels that turn several heads per thread (pecheck's own: 8) see them.
    const auto heads = *rc::gen::weightedOneOf<std::int64_t>({{7, rc::gen::inRange<std::int64_t>(1, 5)}, {1, rc::gen::inRange<std::int64_t>(5, 18)}});
    const std::int64_t dim = *head_dim(s);
    in.x = tensor<double>({tokens, heads, dim});
    in.x.data = *props::gen_vector(tokens * heads * dim);
    if (rotates_by_role(s)) in.role = *rc::gen::inRange(0, 2);  // xPos: query 0 or key 1
    const bool edges = *rc::gen::inRange(0, 4) == 0;
    if (edges) put_edge_values(op, s, in, io);
    RC_CLASSIFY(edges, "values at the dtype's edges");
  }
  if (op == "bias") {
    for (std::int64_t t = 0; t < tokens; ++t) in.qpos.push_back(*props::gen_position(max_pos));
    const auto keys = *rc::gen::inRange<std::int64_t>(1, 9);
    for (std::int64_t t = 0; t < keys; ++t) in.kpos.push_back(*props::gen_position(max_pos));
  }
  if (op == "bucket") {
    for (std::int64_t t = 0; t < tokens; ++t) in.rel.push_back(*props::gen_position(max_pos) * *rc::gen::element<std::int64_t>(1, -1));
  }
  if (op == "attend") {
    // Shapes, heads and values as the laws draw them; positions up to max_pos. A causal query
    // needs a key at or before it: keys then sit at the queries' positions.
    // A decoder-only spec (alibi(causal=true)) takes the causal mask only.
    const bool causal = needs_causal_mask(s) || *rc::gen::arbitrary<bool>();
    in.attend = props::draw_attend(s, tokens, causal);
    auto& a = in.attend;
    // Half the cases keep every position <= 2^12: at large positions a binary32 kernel's angle
    // errors make the scores unresolvable and only the values' hull bounds the output
    // (proofs/gate_tolerance.md, attend), so those cases say little.
    const bool near = *rc::gen::arbitrary<bool>();
    const std::int64_t top = near ? std::min<std::int64_t>(max_pos, 4096) : max_pos;
    RC_CLASSIFY(near, "positions<=2^12");
    a.qpos.clear();
    for (std::int64_t e = 0; e < tokens * in.pos_axes; ++e) a.qpos.push_back(*props::gen_position(top));
    keep_within_table(s, a.qpos);
    if (!is_absolute(s)) {
      a.kpos = a.qpos;
      if (!causal)
        for (auto& p : a.kpos) p = *props::gen_position(top);
    }
    // Queries, keys and weights scaled (by powers of two, exactly) to |values| <= 1, as trained
    // models keep them: scores of a few units, where binary32 can still resolve the softmax.
    // gen_vector's 2^8 magnitudes would give scores near 10^5, where only the values' hull
    // bounds a correct kernel's output.
    for (auto* t : {&a.q, &a.k, &a.x, &a.wq, &a.wk}) {
      double top_value = 0;
      for (const double v : t->data) top_value = std::max(top_value, std::abs(v));
      if (top_value > 1)
        for (auto& v : t->data) v = std::ldexp(v, -std::ilogb(top_value) - 1);
    }
    RC_CLASSIFY(causal, "causal");
  }
  return in;
}

}  // namespace

namespace {

// Conformance of one op: RapidCheck cases (inv_freq has no inputs: one case) against the exact reference.
check_result conformance_of(implementation& impl, const gate_options& o, const spec& s, const std::string& op) {
  check_result r{"conformance." + op, o.spec};
  r.reproduce = fmt::format("{} --spec {} --seed {} --cases {}", o.reproduce_prefix, props::shell_quote(o.spec), o.seed, o.cases);
  if ((op == "inv_freq" || op == "attend") && reads_call_length(s)) {
    r.result = verdict::skipped;
    r.detail = fmt::format("the spec's frequencies read the call's length (no seq_len in its scaling), which {} does not fix; pin seq_len to check it",
                           op == "inv_freq" ? "inv_freq, with no positions," : "attend, rotating queries and keys of different lengths,");
    return r;
  }
  const int cases = op == "inv_freq" ? 1 : o.cases;
  int tried = 0;  // cases drawn so far, shrinking included (progress only)
  int answered = 0;
  outcome worst;
  coverage reached(o.model.io);
  call_policy calls(cases);  // patience: as many unsupported answers as there are cases
  const auto result = props::run_rapidcheck({cases, o.seed}, [&] {
    calls.before_call();
    if (o.progress) o.progress(r.check, ++tried, cases);
    const op_inputs in = draw_inputs(op, s, o.max_pos, o.model.io);
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
    r.detail += "\n    minimal case: " + example;
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
  const auto result = props::run_rapidcheck({cases, o.seed}, [&] {
    calls.before_call();
    const op_inputs in = rounded_inputs(op, draw_inputs(op, s, o.max_pos, o.model.io), o.model.io);
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
