// The laws on the implementation alone: the property registry's laws marked on_implementations, run through a
// backend that calls the implementation and carries the gate's error model (proofs/gate_laws.md).
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "gate/call_policy.hpp"
#include "gate/checks.hpp"
#include "gate/coverage.hpp"
#include "gate/op_io.hpp"
#include <rapidcheck.h>

#include "pe/error.hpp"
#include "pe/op_schema.hpp"
#include "properties/property.hpp"
#include "properties/runner.hpp"

namespace pe::gate {
namespace {

// A call the law could not use: the implementation answered something other than ok.
struct call_failed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The implementation as a law sees it. Inputs reach it rounded to the I/O dtype (stored), every
// output carries the error model's bound (output_error), positions stay within --max-position.
class implementation_backend final : public props::backend<double> {
 public:
  implementation_backend(implementation& impl, const error_model& m, std::int64_t max_pos, int patience)
      : impl_(impl), model_(m), max_pos_(max_pos), calls_(patience), reached_(m.io) {}

  std::string name() const override { return impl_.name(); }
  std::int64_t max_position() const override { return max_pos_; }
  int unsupported_calls() const { return calls_.unsupported(); }
  const std::string& fatal() const { return calls_.cause(); }
  const coverage& reached() const { return reached_; }
  bool any_answered() const { return calls_.any_supported(); }
  const std::vector<std::string>& declined_ops() const { return declined_; }
  // An op the law calls that was declined and never answered: the law needs an op the
  // implementation does not offer here (a scope it states), "" where there is none.
  std::string op_never_answered() const {
    for (const auto& op : declined_)
      if (std::find(answered_ops_.begin(), answered_ops_.end(), op) == answered_ops_.end()) return op;
    return "";
  }

  std::vector<double> stored(std::vector<double> values) const override {
    tensor<double> t({static_cast<std::int64_t>(values.size())});
    t.data = std::move(values);
    return rounded(t, model_.io).data;
  }

  std::vector<named_tensor<double>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    // The attention factor and the frequencies are constants of the spec that pecheck knows:
    // laws read them from the binary64 reference (norm preservation needs A, not the kernel's
    // own report of it), so an implementation that offers rotate alone is judged all the same.
    if (is_spec_constant(op)) return run_op<double>(op, s, in);
    calls_.before_call();
    reached_.drawn(in);
    const auto got = impl_.run(std::string(op), s.text(), io_inputs(op, s, in, model_.io, model_.tables), output_templates(op, s, in, model_.io));
    const std::string what = fmt::format("{}: {} ({} on {})", status_name(got.status), got.message, op, s.text());
    if (got.status == call_status::unsupported && std::find(declined_.begin(), declined_.end(), op) == declined_.end()) declined_.emplace_back(op);
    calls_.answered(got.status, what, got.process_replaced);
    if (got.status != call_status::ok) throw call_failed(what);
    calls_.supported();
    if (std::find(answered_ops_.begin(), answered_ops_.end(), op) == answered_ops_.end()) answered_ops_.emplace_back(op);
    reached_.answered(in);
    std::vector<named_tensor<double>> out;
    for (std::size_t o = 0; o < got.outputs.size(); ++o) {
      tensor<double> v(got.outputs[o].shape);
      const float_format& f = got.outputs[o].type == dtype::i64 ? binary64 : dtype_format(model_.io);
      std::optional<std::vector<named_tensor<double>>> reference;  // evaluated only if an output is not finite
      for (std::int64_t e = 0; e < got.outputs[o].elements(); ++e) {
        const double y = v.data[static_cast<std::size_t>(e)] = got.outputs[o].at(e);
        if (std::isfinite(y)) continue;
        // Finite in, finite out: only an exact value that overflows the dtype may come back infinite.
        if (!reference) reference = run_op<double>(op, s, in);
        if (y != round_to_format((*reference)[o].value.data[static_cast<std::size_t>(e)], f)) {
          throw call_failed(fmt::format("bad output: {}[{}] = {} from finite inputs ({} on {})", got.outputs[o].name, e, y, op, s.text()));
        }
      }
      out.push_back({got.outputs[o].name, std::move(v)});
    }
    return out;
  }

  // The error model's bound B(y exact) = k |y exact| + R, evaluated at the output itself: with
  // |y - y exact| <= B, |y exact| <= (|y| + R) / (1 - k), so B <= (k |y| + R) / (1 - k).
  std::vector<double> output_error(std::string_view op, const spec& s, const op_inputs& in, std::string_view name,
                                   const tensor<double>& value) const override {
    if (is_spec_constant(op)) return std::vector<double>(value.data.size(), 0.0);  // the reference's own (see run)
    auto at_output = output_bounds(model_, op, s, in, {{std::string(name), value}}).at(0);
    const double k = dtype_roundoff(model_.io) + model_.angle_coefficient * dtype_roundoff(model_.working);
    for (auto& b : at_output) b /= 1 - k;
    return at_output;
  }

 private:
  implementation& impl_;
  error_model model_;
  std::int64_t max_pos_;
  mutable call_policy calls_;  // patience: as many unsupported answers as the law has cases
  mutable coverage reached_;
  mutable std::vector<std::string> declined_;
  mutable std::vector<std::string> answered_ops_;
};

}  // namespace

std::vector<check_result> check_laws(implementation& impl, const gate_options& o) {
  const spec s = parse_spec(o.spec);
  std::vector<check_result> out;
  for (const auto& p : props::properties()) {
    if (!p.on_implementations) continue;
    bool applies = false;
    for (const auto& t : p.targets) applies = applies || t.scheme == s.scheme();
    if (!applies) continue;
    check_result r{p.id, o.spec};
    r.law = true;
    r.reproduce = fmt::format("{} --spec {} --seed {} --cases {}", o.reproduce_prefix, props::shell_quote(o.spec), o.seed, o.cases);
    if (p.compares_call_lengths && reads_call_length(s)) {
      r.result = verdict::skipped;
      r.detail = "this law compares calls of different lengths, and the spec's frequencies read the call's length "
                 "(no seq_len in its scaling): it does not hold for the spec itself; pin seq_len to check it";
      out.push_back(std::move(r));
      continue;
    }
    if (o.progress) o.progress(p.id, 0, o.cases);
    const implementation_backend backend(impl, o.model, o.max_pos, o.cases);
    const props::target fixed{o.spec, s.scheme(), props::expectation::holds, rc::gen::just(o.spec)};
    const auto result = props::run_target(p, fixed, {o.cases, o.seed, o.shrink_budget}, backend);
    r.cases = result.cases;
    r.planned = o.cases;
    r.worst_fraction = result.worst_fraction;
    r.first_failure_fraction = result.first_failure_fraction;
    r.never_answered = backend.reached().never_answered();
    r.declined_ops = backend.declined_ops();
    r.top_position = backend.reached().top_answered_position();
    if (result.observed == "gave up" && backend.unsupported_calls() > 0 && !backend.any_answered()) {
      r.result = verdict::unsupported;
      r.detail = fmt::format("{} answered unsupported for the calls of {}", impl.name(), p.id);
    } else if (result.observed == "gave up" && backend.unsupported_calls() > 0 && !backend.op_never_answered().empty()) {
      // A law of two ops (apply_tables against rotate) where one of them is declined on every call.
      r.result = verdict::unsupported;
      r.detail = fmt::format("{} answered unsupported for every call of {}, which {} needs", impl.name(), backend.op_never_answered(), p.id);
    } else if (result.observed == "gave up" && backend.unsupported_calls() > 0) {
      // Some calls answered, too many declined to reach the cases asked for: hold_to_coverage says INCOMPLETE.
    } else if (!result.met) {
      r.result = verdict::fail;
      // After a fatal call the shrinking steps are discarded uncalled: the case shown is the one that did it.
      r.detail = fmt::format("{}: {}", p.statement, backend.fatal().empty() ? result.failure : backend.fatal());
      r.minimal_case = result.drawn;
      r.detail += minimal_case_line(o, result.shrink_stopped, r.minimal_case);
    }
    r.unsupported = backend.unsupported_calls();
    hold_to_coverage(r);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace pe::gate
