// The audit's sweep (see sweep.hpp): chunks of positions through the implementation, compared with the exact reference.
#include "audit/sweep.hpp"

#include <malloc.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <future>
#include <random>

#include <fmt/format.h>

#include "audit/position_set.hpp"
#include "gate/gate_ops.hpp"
#include "gate/op_io.hpp"
#include "gate/tolerance.hpp"
#include "pe/error.hpp"
#include "pe/op_chunks.hpp"
#include "pe/op_schema.hpp"
#include "pe/parallel.hpp"
#include "pe/ops.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/ulp.hpp"

namespace pe::audit {
namespace {

// Positions of the global set cross-checked against MPFR: 32 spread evenly over it, first and
// last included, so that shards check their share of one sample.
constexpr std::int64_t sample_size = 32;
bool sampled(std::int64_t index, std::int64_t size) {
  if (size <= sample_size) return true;
  // index is in the sample when some i in [0, 32) has floor(i (size - 1) / 31) == index.
  const auto i = static_cast<std::int64_t>((static_cast<__int128>(index) * (sample_size - 1) + size - 2) / (size - 1));
  return static_cast<std::int64_t>(static_cast<__int128>(i) * (size - 1) / (sample_size - 1)) == index;
}

// Failed calls in a row after which the sweep gives up.
constexpr int failures_before_stopping = 3;

// What the sweep reads of the spec's op: its name, position columns and the band of each index of
// the output's last axis.
struct swept_op {
  std::string op;
  bool takes_x = false;               // rotate: x [T, H, D], a row per head
  std::int64_t axes = 1, width = 0;
  std::vector<std::int64_t> band_of;  // per index of the last axis
};

// Up to eight bands of consecutive units (pairs or components).
constexpr std::int64_t max_bands = 8;

// The ops of s that a sweep can run: those with a sweep call (gate_ops.hpp).
std::vector<std::string> sweepable_ops(const spec& s) {
  std::vector<std::string> out;
  for (const auto& op : s.info().ops) {
    const op_schema* schema = find_op_schema(op);  // reference-only ops have no gate entry
    if (schema && !schema->reference_only && gate::gate_op_of(op).sweep) out.push_back(op);
  }
  return out;
}

// setup.op's sweep, or when it is empty the first op the scheme lists that a sweep can run
// (rotate before rotate_grad), which setup.op then names.
swept_op swept_op_of(const spec& s, audit_setup& setup) {
  swept_op w;
  const auto ops = sweepable_ops(s);
  if (ops.empty()) {
    throw input_error(fmt::format("audit: {} has no op that runs position by position (encode or rotate) to sweep; its ops: {}", s.scheme(),
                                  fmt::join(s.info().ops, ", ")));
  }
  if (!setup.op.empty() && std::find(ops.begin(), ops.end(), setup.op) == ops.end())
    throw input_error(fmt::format("audit: --op {}: {} sweeps {} only", setup.op, s.scheme(), fmt::join(ops, ", ")));
  w.op = setup.op.empty() ? ops.front() : setup.op;
  setup.op = w.op;
  w.takes_x = takes_x_rows(w.op, s);
  w.axes = position_axes(s);
  std::vector<std::int64_t> unit_of;  // per index: its pair or component, -1 for a dim no pair turns
  std::int64_t units = 0;
  if (is_rotary(s)) {
    const auto plan = rotation_plan_of(s, std::nullopt);
    w.width = plan.dim;
    unit_of.assign(static_cast<std::size_t>(plan.dim), -1);
    for (std::size_t k = 0; k < plan.pairs.size(); ++k) unit_of[plan.pairs[k].a] = unit_of[plan.pairs[k].b] = static_cast<std::int64_t>(k);
    units = static_cast<std::int64_t>(plan.pairs.size());
    setup.unit = "pair";
  } else {
    const std::vector<std::int64_t> zero(static_cast<std::size_t>(w.axes), 0);
    w.width = run_op<double>(w.op, s, op_inputs{zero, w.axes}).at(0).value.shape.back();
    const auto phases = behaviour_of(s).phases ? behaviour_of(s).phases(s) : std::nullopt;
    if (phases) {
      for (const int i : phases->pair_of_component) unit_of.push_back(i), units = std::max<std::int64_t>(units, i + 1);
      setup.unit = "pair";
    } else {
      for (std::int64_t j = 0; j < w.width; ++j) unit_of.push_back(j);
      units = w.width, setup.unit = "component";
    }
  }
  const std::int64_t bands = std::min(max_bands, std::max<std::int64_t>(units, 1));
  for (std::int64_t b = 0; b < bands; ++b) setup.bands.emplace_back(b * units / bands, (b + 1) * units / bands - 1);
  setup.has_unrotated = std::find(unit_of.begin(), unit_of.end(), -1) != unit_of.end();
  for (const auto u : unit_of) w.band_of.push_back(u < 0 ? bands : u * bands / units);
  return w;
}

// The rows of w.width values that one position of the sweep gives, with `heads` heads of x: its
// outputs' together (rotate: heads; rotate_qk: q_out's and k_out's heads; encode: 1).
std::int64_t rows_per_position(const spec& s, const swept_op& w, std::int64_t heads) {
  op_inputs in;
  in.pos_axes = w.axes;
  in.pos.assign(static_cast<std::size_t>(w.axes), 0);
  tensor<double> rows;
  if (w.takes_x) rows = tensor<double>({1, heads, w.width});
  gate::gate_op_of(w.op).sweep(s, in, std::move(rows), gate::dtype::f64);
  std::int64_t elements = 0;
  for (const auto& t : gate::output_templates(w.op, s, in, gate::dtype::f64)) elements += t.elements();
  return elements / w.width;
}

// The [heads, width] row of x every position rotates: uniform in [-1, 1) from the seed (53 bits of
// each 64-bit draw, so the values are the same on every platform), rounded to the I/O dtype.
std::vector<double> pseudo_random_row(std::uint64_t seed, std::int64_t n, gate::dtype io) {
  std::mt19937_64 draw(seed);
  std::vector<double> row;
  for (std::int64_t i = 0; i < n; ++i) row.push_back(round_to_format(std::ldexp(static_cast<double>(draw() >> 11), -52) - 1, gate::dtype_format(io)));
  return row;
}

// 1 / ulp_in_format(x) for the rows' scales, remembered for the last binary exponent: rows of one
// call mostly share their scale's exponent, and ilogb and ldexp cost more than the rest of a row's setup.
class ulps_per_unit {
 public:
  explicit ulps_per_unit(const float_format& f) : format_(f) {}
  double per_ulp(double x) {
    const auto exponent = (std::bit_cast<std::uint64_t>(x) >> 52) & 0x7ff;
    // Zeros and subnormals (exponent field 0) and non-finite values are not remembered: ilogb of a
    // subnormal depends on its significand.
    if (exponent != exponent_ || exponent == 0 || exponent == 0x7ff) exponent_ = exponent, per_ulp_ = 1 / ulp_in_format(x, format_);  // a power of 2: exact
    return per_ulp_;
  }

 private:
  const float_format& format_;
  std::uint64_t exponent_ = 0;
  double per_ulp_ = 0;
};

class sweeper {
 public:
  sweeper(const audit_request& q, const spec& s, const gate::error_model& m, const swept_op& w, audit_profile& p, const position_set& set)
      : q_(q), s_(s), model_(m), w_(w), profile_(p), set_(set), format_(gate::dtype_format(m.io)) {
    if (w_.takes_x) row_ = pseudo_random_row(q.seed, q.heads * w.width, m.io);
    partial_.assign(static_cast<std::size_t>(worker_threads()), audit_profile(p.setup));
  }

  // The workers' measurements, merged into the profile.
  void finish() {
    for (const auto& part : partial_) profile_.merge(part);
    partial_.clear();
  }

  // The call for indices [begin, end) of the set; its status (the sweep goes on after a failure,
  // and stops at an unsupported call: the others would be too).
  gate::call_status sweep(gate::implementation& impl, std::int64_t begin, std::int64_t end) {
    const std::int64_t tokens = end - begin;
    op_inputs in;
    in.pos_axes = w_.axes;
    for (std::int64_t i = begin; i < end; ++i) in.pos.insert(in.pos.end(), static_cast<std::size_t>(w_.axes), set_.at(i));
    tensor<double> rows;
    if (!row_.empty()) {
      rows = tensor<double>({tokens, q_.heads, w_.width});
      for (std::int64_t t = 0; t < tokens; ++t) std::copy(row_.begin(), row_.end(), rows.data.begin() + t * static_cast<std::int64_t>(row_.size()));
    }
    gate::gate_op_of(w_.op).sweep(s_, in, std::move(rows), model_.tables);
    const auto inputs = gate::io_inputs(w_.op, s_, in, model_.io, model_.tables);
    const auto templates = gate::output_templates(w_.op, s_, in, model_.io);
    const std::string text = s_.text();
    gate::call_result got;
    std::vector<named_tensor<double>> exact;
    if (impl.in_process()) {
      got = impl.run(w_.op, text, inputs, templates);
      if (got.status == gate::call_status::ok) exact = run_op<double>(w_.op, s_, in);
    } else {
      // An isolated implementation works in its own process: the reference is computed meanwhile,
      // on a helper thread. The call stays on this thread: a worker the call starts anew (after a
      // fault) is forked from it, and a worker dies with the thread that forked it (its
      // parent-death signal), so that thread must outlive the sweep.
      auto pending = std::async(std::launch::async, [&] {
        auto outputs = run_op<double>(w_.op, s_, in);
        release_thread_caches();
        return outputs;
      });
      got = impl.run(w_.op, text, inputs, templates);
      exact = pending.get();
    }
    if (got.status != gate::call_status::ok) {
      profile_.failed_calls.push_back(fmt::format("positions {}..{}: {}: {}", set_.at(begin), set_.at(end - 1), gate::status_name(got.status), got.message));
      return got.status;
    }
    // Each output's rows follow the ones before it at each position (rotate_qk: q_out's heads,
    // then k_out's).
    const auto bounds = gate::output_bounds(model_, w_.op, s_, in, exact);
    std::int64_t first_head = 0;
    for (std::size_t o = 0; o < got.outputs.size(); ++o) {
      const auto& output = got.outputs[o];
      std::vector<double> values(static_cast<std::size_t>(output.elements()));
      // The output as doubles, a range of tokens per worker thread.
      const std::int64_t per_token = static_cast<std::int64_t>(values.size()) / tokens;
      parallel_ranges(tokens, std::max<std::int64_t>(1, 8192 / per_token), [&](std::int64_t t0, std::int64_t t1, int) {
        output.to_doubles(t0 * per_token, t1 * per_token, values.data() + t0 * per_token);
      });
      compare(begin, tokens, first_head, values, exact.at(o).value.data, bounds.at(o));
      first_head += per_token / w_.width;
    }
    for (std::int64_t t = 0; t < tokens; ++t)
      if (sampled(begin + t, set_.size())) cross_check(in, t, exact);
    profile_.cover(begin, end);
    return gate::call_status::ok;
  }

 private:
  // Every element of one output against the exact one, into its bucket; its rows are the
  // position's rows from first_head on.
  void compare(std::int64_t begin, std::int64_t tokens, std::int64_t first_head, const std::vector<double>& got, const std::vector<double>& exact,
               const std::vector<double>& bound) {
    const std::int64_t width = w_.width, rows = static_cast<std::int64_t>(exact.size()) / width, per_token = rows / tokens;
    // Rows split across the worker threads, each gathering into a profile of its own: the profiles
    // merge exactly, so the result does not depend on the split.
    parallel_ranges(rows, std::max<std::int64_t>(1, 8192 / width), [&](std::int64_t first_row, std::int64_t end_row, int worker) {
      compare_rows(begin, first_row, end_row, per_token, first_head, got, exact, bound, partial_[static_cast<std::size_t>(worker)]);
    });
  }

  // compare's rows [first_row, end_row) into `into`.
  void compare_rows(std::int64_t begin, std::int64_t first_row, std::int64_t end_row, std::int64_t per_token, std::int64_t first_head,
                    const std::vector<double>& got, const std::vector<double>& exact, const std::vector<double>& bound, audit_profile& into) const {
    const std::int64_t width = w_.width;
    ulps_per_unit units(format_);
    for (std::int64_t r = first_row; r < end_row; ++r) {
      const std::int64_t position = set_.at(begin + r / per_token);
      const int decade = decade_of(position);
      // Errors in ulps of the row's scale, its largest exact value: a rotation turns a pair's
      // value through 0, where ulps at the element itself would mean nothing (as the gate does).
      double scale = 0;
      for (std::int64_t i = 0; i < width; ++i) scale = std::max(scale, std::abs(exact[static_cast<std::size_t>(r * width + i)]));
      const double per_unit = units.per_ulp(std::isfinite(scale) ? scale : 0.0);
      bucket_stats* const row_buckets = &into.bucket(decade, 0);
      const std::int64_t head = first_head + r % per_token;
      octave_stats row;  // the row's share of its octave's picture
      for (std::int64_t i = 0; i < width; ++i) {
        const auto e = static_cast<std::size_t>(r * width + i);
        bucket_stats& into_bucket = row_buckets[w_.band_of[static_cast<std::size_t>(i)]];
        const auto record = [&](double ulps, double fraction) { return element_record{position, head, i, got[e], exact[e], bound[e], ulps, fraction}; };
        double ulps = 0;
        if (std::isfinite(got[e]) && std::isfinite(exact[e])) {
          const double err = std::abs(got[e] - exact[e]);
          ulps = err * per_unit;
          const unsigned __int128 squared = squared_units(ulps);
          into_bucket.add_error_in_order(err, ulps, squared, bound[e], record);
          row.sum_squares += squared;
        } else {
          // Where the exact value leaves the dtype, its correctly rounded infinity is the only right answer.
          ulps = got[e] == round_to_format(exact[e], format_) ? 0 : std::numeric_limits<double>::infinity();
          into_bucket.add_in_order(ulps, ulps, [&] { return record(ulps, ulps); });
          if (ulps != 0) ++row.nonfinite;
        }
        row.max_ulps = std::max(row.max_ulps, ulps);
        row.max_bound_ulps = std::max(row.max_bound_ulps, bound[e]);
      }
      // The first position over each threshold: a row's worst error decides for all its elements
      // (ulps is never NaN: 0 or +Inf where an output is not finite).
      for (std::size_t k = 0; k < thresholds.size() && row.max_ulps > thresholds[k]; ++k)
        if (into.first_over[k] < 0 || position < into.first_over[k]) into.first_over[k] = position;
      row.max_bound_ulps *= per_unit;  // the row's largest bound, in its ulps (per_unit is a power of 2: exact)
      row.count = static_cast<std::uint64_t>(width);
      into.octaves[static_cast<std::size_t>(octave_of(position))].merge(row);
    }
  }

  // Token t's exact binary64 outputs against MPFR at 160 bits (they are correctly rounded: within
  // half a binary64 ulp).
  void cross_check(const op_inputs& in, std::int64_t t, const std::vector<named_tensor<double>>& exact) {
    const op_inputs one = token_range(in, t, 1);
    std::vector<named_tensor<mp_real>> wide;
    {
      mp_precision scope(160);
      wide = run_op_tokens<mp_real>(w_.op, s_, one, call_seq_len(in.pos));
    }
    for (std::size_t o = 0; o < wide.size(); ++o) {
      const auto& values = wide[o].value.data;
      const std::size_t first = static_cast<std::size_t>(t) * values.size();
      for (std::size_t k = 0; k < values.size(); ++k)
        profile_.sample_worst_ulps = std::max(profile_.sample_worst_ulps, error_in_ulps(exact.at(o).value.data[first + k], values[k], binary64));
    }
    ++profile_.sample_positions;
  }

  static constexpr const auto& thresholds = first_over_ulps;
  const audit_request& q_;
  const spec& s_;
  const gate::error_model& model_;
  const swept_op& w_;
  audit_profile& profile_;
  const position_set& set_;
  const float_format& format_;
  std::vector<double> row_;
  std::vector<audit_profile> partial_;  // one per worker thread
};

}  // namespace

namespace {

// A request checked and read: everything the sweep needs but the implementation.
struct checked_request {
  spec s;
  gate::error_model model;
  position_set set;
  shard part;
  audit_setup setup;
  swept_op op;
};

checked_request check_request(const audit_request& q) {
  const spec s = parse_spec_any(q.spec);
  const auto io = gate::parse_dtype(q.dtype);
  const std::string working = gate::working_precision(io, q.working);
  const auto model = gate::error_model::of(io, gate::parse_dtype(working), q.tolerance);
  const position_set set = position_set::parse(q.positions);
  const shard part = shard::parse(q.shard);
  if (q.heads < 1 || q.heads > 4096) throw input_error(fmt::format("--heads {} is not 1 to 4096", q.heads));
  if (q.tokens_per_call < 1 || q.tokens_per_call > (std::int64_t{1} << 20)) {
    throw input_error(fmt::format("--tokens-per-call {} is not 1 to 2^20", q.tokens_per_call));
  }
  if (const auto limit = position_limit(s); limit && set.last() >= *limit) {
    throw input_error(fmt::format("--positions '{}' reaches {}, but {} has positions below {} only", set.text(), set.last(), s.scheme(), *limit));
  }
  if (const auto reach = gate::drawn_position_limit(s, model, set.last()); reach < set.last()) {
    throw input_error(fmt::format("--positions '{}' reaches {}, but {}'s scale leaves {} beyond {}", set.text(), set.last(), s.scheme(), q.dtype, reach));
  }
  audit_setup setup;
  setup.spec = s.text(), setup.dtype = q.dtype, setup.working = working, setup.tolerance = q.tolerance, setup.positions = set.text();
  setup.position_count = set.size(), setup.heads = q.heads, setup.tokens_per_call = q.tokens_per_call, setup.seed = q.seed;
  setup.op = q.op;
  swept_op op = swept_op_of(s, setup);
  if (!op.takes_x) setup.heads = 1;  // no x: one row per position
  const std::int64_t rows = rows_per_position(s, op, setup.heads);
  // A call's tensors are held several times over in binary64: 2^27 elements (1 GiB each) at most.
  const auto per_call = static_cast<double>(q.tokens_per_call) * static_cast<double>(rows) * static_cast<double>(op.width);
  if (per_call > 0x1p27) {
    throw input_error(fmt::format("--tokens-per-call {} x {} row(s) x {} values = {:.0f} elements per call, more than 2^27: give fewer tokens per call",
                                  q.tokens_per_call, rows, op.width, per_call));
  }
  return {s, model, set, part, std::move(setup), std::move(op)};
}

audit_profile sweep_all(const audit_request& q, const checked_request& c, gate::implementation& impl) {
  audit_setup setup = c.setup;
  setup.implementation = impl.name();
  audit_profile profile(setup);
  sweeper sweep(q, c.s, c.model, c.op, profile, c.set);
  // Shards split the calls, not the positions: every call holds the same positions however the
  // set is sharded (a call's length changes what dynamic NTK and LongRoPE compute), so merged
  // parts are the unsharded profile.
  const std::int64_t calls = (c.set.size() - 1) / q.tokens_per_call + 1;
  const std::int64_t begin = std::min(c.set.size(), c.part.begin(calls) * q.tokens_per_call);
  const std::int64_t end = std::min(c.set.size(), c.part.end(calls) * q.tokens_per_call);
  profile.assign(begin, end);
  int failures = 0;
  bool unsupported = false;
  for (std::int64_t at = begin; at < end && failures < failures_before_stopping && !unsupported; at += q.tokens_per_call) {
    const std::int64_t stop = std::min(end, at + q.tokens_per_call);
    const auto status = sweep.sweep(impl, at, stop);
    failures = status == gate::call_status::ok ? 0 : failures + 1;
    unsupported = status == gate::call_status::unsupported;
    if (q.progress) q.progress(stop - begin, end - begin);
  }
  sweep.finish();
  if (unsupported) profile.failed_calls.push_back("the sweep stopped: the implementation does not support this op on this spec");
  else if (failures == failures_before_stopping) profile.failed_calls.push_back(fmt::format("the sweep stopped after {} failed calls in a row", failures));
  std::sort(profile.failed_calls.begin(), profile.failed_calls.end());  // in the order merged parts have
  return profile;
}

}  // namespace

audit_profile run_audit(const audit_request& q) {
  const checked_request c = check_request(q);  // before the implementation starts
  // Each call allocates tens of MiB and frees them: kept by malloc instead of given back to the
  // system and faulted in afresh (page faults had been a quarter of an audit's time).
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  auto impl = gate::open_implementation(q.implementation, "audit");
  return sweep_all(q, c, *impl);
}

audit_profile run_audit(const audit_request& q, gate::implementation& impl) { return sweep_all(q, check_request(q), impl); }

sweep_rows sweep_rows_of(const spec& s, audit_setup& setup) {
  swept_op op = swept_op_of(s, setup);
  const std::int64_t rows = rows_per_position(s, op, op.takes_x ? setup.heads : 1);
  return {op.width, std::move(op.band_of), op.takes_x, rows};
}

bool audit_passed(const audit_profile& p) {
  const auto t = p.total();
  return p.complete() && p.failed_calls.empty() && t.nonfinite == 0 && t.max_fraction <= 1;
}

}  // namespace pe::audit
