// The diagnosis (see diagnose.hpp): fixed calls through the implementation, every variant's outputs beside them.
#include "audit/diagnose.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "audit/candidates.hpp"
#include "audit/non_finite.hpp"
#include "gate/gate_ops.hpp"
#include "gate/op_io.hpp"
#include "gate/tolerance.hpp"
#include "pe/error.hpp"
#include "pe/op_schema.hpp"
#include "pe/op_shapes.hpp"
#include "pe/scheme.hpp"

namespace pe::audit {
namespace {

// The op a diagnosis calls: `asked` where given (one the spec has and the gate probes), else the
// first the spec has of those the gate probes, the leading op (rotate) ahead of the rest (the one
// that shows its convention most directly).
std::string diagnosed_op(const spec& s, const std::string& asked) {
  const auto& ops = s.info().ops;
  std::vector<std::string> probed;
  for (const auto& g : gate::gate_op_table())
    if (g.probe) probed.insert(g.leads ? probed.begin() : probed.end(), std::string(g.op));
  std::vector<std::string> usable;
  for (const auto& op : probed)
    if (std::find(ops.begin(), ops.end(), op) != ops.end()) usable.push_back(op);
  if (usable.empty()) throw input_error(fmt::format("diagnose: {} has none of the ops it can diagnose ({})", s.scheme(), fmt::join(probed, ", ")));
  if (asked.empty()) return usable.front();
  if (std::find(usable.begin(), usable.end(), asked) == usable.end())
    throw input_error(fmt::format("diagnose: --op {}: {} can be diagnosed on {}", asked, s.scheme(), fmt::join(usable, ", ")));
  return asked;
}

// The calls' positions, eight tokens each (so each call weighs the same in the percentile): small,
// from a nonzero unsorted first, around bf16's 256, around 4096, to 2^17, past 2^20, and for each
// of the scheme's own boundaries (a call length where its behaviour switches) a call ending there.
std::vector<std::vector<std::int64_t>> position_calls(const spec& s) {
  std::vector<std::vector<std::int64_t>> calls{{0, 1, 2, 3, 4, 5, 6, 7},
                                               {1000, 1003, 1001, 1010, 1020, 1100, 1007, 1500},
                                               {250, 251, 252, 253, 254, 255, 256, 257},
                                               {4090, 4095, 4096, 4100, 5000, 6000, 8191, 8192},
                                               {10000, 20000, 40000, 65535, 65536, 70000, 100000, 131071},
                                               {1048573, 1048575, 1048576, 1500000, 2000000, 3000000, 4000000, 8000000}};
  for (const auto b : boundary_positions(s))
    if (b >= 7) calls.push_back({0, 1, 2, 3, 4, 5, b - 1, b});
  // Positions a table holds, and within a scale's reach (xPos).
  const auto limit = position_limit(s);
  for (auto& c : calls)
    for (auto& p : c)
      if (limit) p %= *limit;
  return calls;
}

// The bound of each value of `expected` (the op's outputs' values in order, concatenated), each
// output's from its own part; std::invalid_argument where the parts are not the op's outputs' sizes.
std::vector<double> concatenated_bounds(const gate::error_model& model, const std::string& op, const spec& s, const op_inputs& in,
                                        const tensor<double>& expected) {
  const auto names = outputs_of(op, s);
  const auto shapes = output_shapes(op, s, in);
  std::vector<named_tensor<double>> parts;
  std::size_t at = 0;
  for (std::size_t o = 0; o < names.size(); ++o) {
    const auto shape = names.size() == 1 ? expected.shape : shapes.at(o).value_or(std::vector<std::int64_t>{});
    tensor<double> part(shape);
    if (at + part.data.size() > expected.data.size()) throw std::invalid_argument("the outputs' sizes");
    std::copy_n(expected.data.begin() + static_cast<std::ptrdiff_t>(at), part.data.size(), part.data.begin());
    at += part.data.size();
    parts.push_back({std::string(names[o]->name), std::move(part)});
  }
  if (at != expected.data.size()) throw std::invalid_argument("the outputs' sizes");
  std::vector<double> out;
  for (const auto& b : gate::output_bounds(model, op, s, in, parts)) out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Each token of a call (its outputs token-major, [T, ...] each) with whether its outputs are all
// finite; none where the op takes no positions or an output is not T rows.
std::vector<token_finiteness> tokens_of(const op_inputs& in, const std::vector<std::vector<double>>& outputs) {
  if (in.pos.empty() || in.pos_axes < 1) return {};
  const std::size_t axes = static_cast<std::size_t>(in.pos_axes), count = in.pos.size() / axes;
  std::vector<token_finiteness> tokens(count);
  for (std::size_t t = 0; t < count; ++t)
    for (std::size_t a = 0; a < axes; ++a) tokens[t].position = std::max(tokens[t].position, std::abs(in.pos[t * axes + a]));
  for (const auto& o : outputs) {
    if (o.size() % count != 0) return {};
    const std::size_t per_token = o.size() / count;
    for (std::size_t e = 0; e < o.size(); ++e)
      if (!std::isfinite(o[e])) tokens[e / per_token].finite = false;
  }
  return tokens;
}

// The largest frequency of a rotary spec's turn (0: none), where angles p * w may overflow.
double largest_frequency_of(const spec& s) {
  if (!is_rotary(s)) return 0;
  try {
    const auto plan = rotation_plan_of(s, std::nullopt);
    double w = 0;
    for (std::size_t k = 0; k < plan.pairs.size(); ++k) w = std::max(w, std::abs(plan.freq.omega<double>(static_cast<int>(k))));
    return w;
  } catch (const std::exception&) {
    return 0;
  }
}

// The p-th quantile (0..1) of v (v is reordered).
double quantile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(k, v.size() - 1)), v.end());
  return v[std::min(k, v.size() - 1)];
}

}  // namespace

diagnosis diagnose(const diagnose_request& q) {
  auto impl = gate::open_implementation(q.implementation, "diagnose");
  diagnosis d = diagnose(q, *impl);
  d.sandbox = impl->in_process() ? gate::sandbox::in_process() : gate::sandbox::current();
  return d;
}

diagnosis diagnose(const diagnose_request& q, gate::implementation& impl) {
  const spec s = parse_spec_any(q.spec);
  const auto io = gate::parse_dtype(q.dtype);
  const auto model = gate::error_model::of(io, gate::parse_dtype(gate::working_precision(io, q.working)), q.tolerance);
  diagnosis d;
  d.implementation = impl.name(), d.asked = s.text(), d.op = diagnosed_op(s, q.op), d.dtype = q.dtype;
  const auto variants = neighbourhood(s, d.op);
  std::vector<std::vector<double>> fractions(variants.size());
  std::mt19937_64 draw(q.seed);
  const std::int64_t reach = gate::drawn_position_limit(s, model, std::int64_t{1} << 40);
  std::vector<token_finiteness> tokens;
  for (const auto& pos : position_calls(s)) {
    const op_inputs in = gate::gate_op_of(d.op).probe(s, pos, draw, io, reach);
    const auto got = impl.run(d.op, s.text(), gate::io_inputs(d.op, s, in, io, model.tables), gate::output_templates(d.op, s, in, io));
    ++d.calls;
    if (got.status != gate::call_status::ok) {
      d.failed.push_back(fmt::format("call {}: {}: {}", d.calls, gate::status_name(got.status), got.message));
      continue;
    }
    // Every output's values in order (rotate_qk: q_out, then k_out), as the variants give them.
    std::vector<std::vector<double>> outputs;
    std::vector<double> values;
    for (const auto& o : got.outputs) {
      outputs.push_back(gate::as_doubles(o).data);
      values.insert(values.end(), outputs.back().begin(), outputs.back().end());
    }
    d.elements += static_cast<std::int64_t>(values.size());
    for (const double v : values) d.non_finite += std::isfinite(v) ? 0 : 1;
    const auto call_tokens = tokens_of(in, outputs);
    tokens.insert(tokens.end(), call_tokens.begin(), call_tokens.end());
    for (std::size_t v = 0; v < variants.size(); ++v) {
      tensor<double> expected;
      std::vector<double> bound;
      std::vector<std::size_t> at;
      try {
        auto e = expected_output(variants[v], d.op, in);
        expected = std::move(e.output);
        at = std::move(e.at);
        bound = concatenated_bounds(model, d.op, variants[v].s, e.read, expected);
        // A transform of the outputs (a factor applied again) is a product more in the kernel: u_w
        // for it and u_w for the factor's own rounding.
        if (variants[v].outputs)
          for (std::size_t k = 0; k < bound.size(); ++k) bound[k] += 2 * gate::dtype_roundoff(model.working) * std::abs(expected.data[k]);
      } catch (const std::exception&) {
        expected.data.clear(), at.clear();  // a variant that cannot take this call explains nothing of it
      }
      // Element e of the variant's outputs is the implementation's at[e] (a variant that reorders
      // the head's dims); a NaN or infinite output is left to non_finite_at, so that the residuals
      // say how well each variant explains the rest.
      for (std::size_t e = 0; e < values.size(); ++e) {
        const double got_e = values[at.size() == values.size() ? at[e] : e];
        if (!std::isfinite(got_e)) continue;
        double f = INFINITY;
        if (expected.data.size() == values.size()) {
          const double err = std::abs(got_e - expected.data[e]);
          f = got_e == expected.data[e] ? 0 : bound[e] > 0 ? err / bound[e] : INFINITY;
          if (std::isnan(f)) f = INFINITY;
        }
        fractions[v].push_back(f);
      }
    }
  }
  for (std::size_t v = 0; v < variants.size(); ++v) {
    auto& f = fractions[v];
    const double worst = f.empty() ? 0 : *std::max_element(f.begin(), f.end());
    d.ranked.push_back({variants[v].name, variants[v].label, variants[v].words, quantile(f, 0.99), worst});
  }
  d.non_finite_at = non_finite_words(tokens, largest_frequency_of(s), d.non_finite, d.elements);
  // Those within the bound first, in the table's order (the simplest explanation that fits: the
  // spec as asked before any variant, specs and transforms before models of the arithmetic), then
  // the rest by residual.
  std::stable_sort(d.ranked.begin(), d.ranked.end(), [](const candidate_fit& a, const candidate_fit& b) {
    const bool fa = a.residual <= 1, fb = b.residual <= 1;
    if (fa != fb) return fa;
    return !fa && a.residual < b.residual;
  });
  return d;
}

bool diagnosis::as_asked() const {
  return elements > 0 && non_finite == 0 && !ranked.empty() && ranked[0].name == "as asked" && ranked[0].residual <= 1;
}

namespace {

// `first`, then each of `more` after "; " while the sentence stays within sentence_columns.
std::string within_columns(std::string first, const std::vector<std::string>& more) {
  for (const auto& clause : more) {
    if (first.size() + 2 + clause.size() > sentence_columns) break;
    first += "; " + clause;
  }
  return first;
}

}  // namespace

std::string diagnosis::sentence() const {
  if (ranked.empty() || elements == 0) return fmt::format("no call answered: nothing to diagnose ({} failed)", failed.size());
  const auto& best = ranked[0];
  std::string first;
  std::vector<std::string> more;
  if (non_finite > 0) {
    // The calls' inputs are finite and every convention's outputs on them are too (|x| < 1,
    // bounded positions), so a NaN or an infinity is a fault, however few: named by where it falls,
    // then what the finite outputs compute (the residuals are over those).
    first = non_finite_at.empty() ? non_finite_words({}, 0, non_finite, elements) : non_finite_at;  // a diagnosis built by hand
    if (non_finite < elements)
      more.push_back(best.residual <= 1 ? fmt::format("elsewhere: {} (residual {:.3g})", best.words, best.residual)
                                        : fmt::format("elsewhere no convention fits; nearest: {} ({:.3g})", best.words, best.residual));
  } else if (best.residual > 1) {
    first = fmt::format("no convention fits; nearest: {} (residual {:.3g})", best.words, best.residual);
  } else if (best.name == "as asked") {
    first = fmt::format("this implementation computes {}; residual {:.3g} of the bound", best.words, best.residual);
  } else {
    first = fmt::format("not as asked: {} (residual {:.3g} of the bound)", best.words, best.residual);
  }
  if (ranked.size() > 1) more.push_back(fmt::format("runner-up: {} ({:.3g})", ranked[1].words, ranked[1].residual));
  return within_columns(std::move(first), more);
}

nlohmann::json diagnosis::json() const {
  nlohmann::json ranking = nlohmann::json::array();
  const auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("inf"); };
  for (const auto& r : ranked)
    ranking.push_back({{"name", r.name}, {"words", r.words}, {"computes", r.label}, {"residual", number(r.residual)}, {"worst", number(r.worst)}});
  return {{"implementation", implementation}, {"asked", asked},   {"op", op},           {"dtype", dtype},     {"calls", calls},
          {"elements", elements},             {"non_finite", non_finite}, {"non_finite_at", non_finite_at}, {"best", ranked.empty() ? "" : ranked[0].name},
          {"sentence", sentence()}, {"ranking", ranking}, {"failed_calls", failed},
          {"sandbox", {{"mode", sandbox.mode}, {"on", sandbox.on}, {"off", sandbox.off}}}};
}

}  // namespace pe::audit
