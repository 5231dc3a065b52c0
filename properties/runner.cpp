// Runs a property on a target with RapidCheck and reports what it observed; the exactness ladder (see runner.hpp).
#include "properties/runner.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <rapidcheck.h>

#include "pe/error.hpp"

namespace pe::props {
namespace {

// What the property body saw across the cases of one RapidCheck run.
struct observations {
  double worst_fraction = 0;
  double first_failure_fraction = 0;  // residual / bound of the first failing case, before shrinking
  std::set<std::string> notes;
  std::string error;  // the last law or reference error
  bool failure_is_error = false;  // the last failing case failed by an error, not by its measure
};

std::string regex_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// Runs `body` (one case: returns the measure) under RapidCheck; a case fails when its measure
// does not hold, or when the law or the implementation throws (recorded as an error).
template <class Body>
run_outcome check(const run_options& options, observations& seen, Body body) {
  return run_rapidcheck(options, [&] {
    std::optional<measure> m;
    std::string error;
    try {
      m = body();
    } catch (const rc::GenerationFailure&) {
      throw;  // RapidCheck's own
    } catch (const std::exception& e) {  // any exception is an error, never a counterexample
      error = e.what();
    }
    if (!m) {
      for (auto& c : error)
        if (c == '\n') c = ';';  // one line, as the report shows a failing case
      seen.error = error;
      seen.failure_is_error = true;
      fail("error: " + error);
    }
    if (!m->note.empty()) seen.notes.insert(m->note);
    if (!m->holds()) {
      if (seen.first_failure_fraction == 0) seen.first_failure_fraction = m->bound > 0 ? m->residual / m->bound : INFINITY;
      seen.failure_is_error = false;
      fail(fmt::format("residual {:.6g} > bound {:.6g}", m->residual, m->bound));
    }
    if (m->bound > 0) seen.worst_fraction = std::max(seen.worst_fraction, m->residual / m->bound);
  });
}

std::string summarize_notes(const std::set<std::string>& notes) {
  if (notes.empty()) return "";
  if (notes.size() == 1) return *notes.begin();
  // Many specs, many K*: report the range of the numbers after "K* = ".
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
  int counted = 0;
  for (const auto& n : notes) {
    if (n.rfind("K* = ", 0) != 0) continue;
    const std::int64_t k = std::stoll(n.substr(5));
    lo = std::min(lo, k), hi = std::max(hi, k), ++counted;
  }
  if (counted > 0) return fmt::format("K* from {} to {} ({} distinct values over the drawn specs)", lo, hi, counted);
  return fmt::format("{} distinct reports, one per drawn spec (a fixed spec shows one)", notes.size());
}

}  // namespace

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

target_result run_target(const property& p, const target& t, const run_options& options, const backend<double>& impl) {
  target_result r;
  r.property_id = p.id;
  r.statement = p.statement;
  r.label = t.label;
  r.scheme = t.scheme;
  r.expected = t.expected;
  r.reproduce = fmt::format("pecheck check --property {} --scheme {} --seed {} --cases {}", shell_quote("^" + regex_escape(p.id) + "$"),
                            shell_quote("^" + regex_escape(t.label) + "$"), options.seed, options.cases);
  observations seen;
  const auto result = check(options, seen, [&] {
    const spec s = parse_spec(*t.specs.as("spec"));
    return p.in_double(impl, s);
  });
  switch (result.verdict) {
    case run_verdict::passed:
      r.cases = result.cases;
      r.observed = t.expected == expectation::holds_within ? "holds_within" : "holds";
      r.classes = result.classes;
      break;
    case run_verdict::failed:
      r.cases = result.cases;
      r.failure = result.message;
      r.observed = seen.failure_is_error ? "error" : "fails";
      r.shrink_stopped = result.shrink_stopped;
      r.drawn = result.counterexample;
      for (const auto& [name, value] : result.counterexample) r.counterexample += fmt::format("{} = {}\n", name, value);
      break;
    case run_verdict::gave_up:
      r.cases = result.cases;  // those that passed before RapidCheck gave up
      r.observed = "gave up";
      r.failure = result.message;
      break;
    case run_verdict::error:
      r.observed = "error";
      r.failure = result.message;
      break;
  }
  r.worst_fraction = seen.worst_fraction;
  r.first_failure_fraction = seen.first_failure_fraction;
  r.bound = summarize_notes(seen.notes);
  if (r.bound.empty() && r.observed == "holds") r.bound = fmt::format("worst residual {:.3g} of its bound", r.worst_fraction);
  r.met = (t.expected == expectation::fails) ? r.observed == "fails"
                                             : (r.observed == "holds" || r.observed == "holds_within");
  return r;
}

ladder_result run_ladder(const property& p, const target& t, const run_options& options) {
  ladder_result out;
  out.property_id = p.id;
  out.label = t.label;
  out.held_to_ladder = p.kind == law_kind::identity && t.expected == expectation::holds;
  out.met = true;
  const reference_backend<mp_real> reference;
  const reference_backend<double> binary64;
  run_options few = options;
  few.cases = std::min(options.cases, 20);
  for (const unsigned bits : ladder_bits) {
    mp_precision scope(bits);
    observations seen;
    double worst = 0;
    // The same seed at every rung: the same specs and inputs, evaluated at `bits`. The 53-bit
    // rung is binary64 itself: Boost 1.74's MPFR backend gives a product of two 53-bit values
    // only 51 bits (it carries precision as 15 decimal digits), so MPFR at 53 is not binary64.
    const auto result = check(few, seen, [&] {
      const spec s = parse_spec(*t.specs);
      measure m = bits == 53 ? p.in_double(binary64, s) : p.in_mp(reference, s);
      worst = std::max(worst, m.residual / m.scale);
      m.bound = std::numeric_limits<double>::infinity();  // the ladder records; the plain run judges
      return m;
    });
    if (result.verdict != run_verdict::passed) {
      out.error = result.account;
      out.met = false;
      break;
    }
    out.rungs.push_back({bits, worst});
    if (out.held_to_ladder && worst > std::ldexp(1.0, ladder_slack_bits - static_cast<int>(bits))) out.met = false;
  }
  return out;
}

}  // namespace pe::props
