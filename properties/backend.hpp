// An encoding as the properties see it: ops by name, so a law runs on the reference or on an implementation under test.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe::props {

// Laws call `run` with the op names and inputs of `pecheck eval`; outputs come back in T.
template <class T>
class backend {
 public:
  virtual ~backend() = default;
  virtual std::string name() const = 0;
  virtual std::vector<named_tensor<T>> run(std::string_view op, const spec& s, const op_inputs& in) const = 0;
  // The scheme's named unscaled score terms (DeBERTa: c2c, c2p, p2c) [H, T, S] for attend's inputs:
  // no op of an implementation, so only the reference has them.
  virtual std::vector<named_tensor<T>> score_terms(const spec& s, const op_inputs& in) const {
    (void)s, (void)in;
    throw input_error(fmt::format("{}: score terms are the reference's own, no op an implementation is handed", this->name()));
  }

  // The output called `name` of `op`.
  tensor<T> output(std::string_view op, const spec& s, const op_inputs& in, std::string_view name) const {
    for (auto& o : run(op, s, in))
      if (o.name == name) return std::move(o.value);
    throw input_error(fmt::format("{}: op '{}' returned no output '{}'", this->name(), op, name));
  }

  // ---- what a law needs to know to judge this backend (proofs/gate_laws.md) ----

  // Real input values as this backend receives them: an implementation under test sees them
  // rounded to its I/O dtype, so a law must reason about those. The reference keeps binary64
  // values exactly (in binary64 and in MPFR at >= 53 bits).
  virtual std::vector<double> stored(std::vector<double> values) const { return values; }

  // Per element of `value` (output `name` of `op` on inputs `in`, already stored): how far it may
  // lie from the exact output beyond the one rounding to T that every law's proof already
  // counts. 0 for the reference; the gate's error model for an implementation.
  virtual std::vector<double> output_error(std::string_view op, const spec& s, const op_inputs& in, std::string_view name,
                                           const tensor<T>& value) const {
    (void)op, (void)s, (void)in, (void)name;
    return std::vector<double>(value.data.size(), 0.0);
  }

  // The largest position a law draws: 2^40 for the reference; the gate's --max-position.
  virtual std::int64_t max_position() const { return std::int64_t{1} << 40; }

  // An output and its per-element error allowance (output_error).
  struct bounded {
    tensor<T> value;
    std::vector<double> error;
  };
  bounded output_with_error(std::string_view op, const spec& s, const op_inputs& in, std::string_view name) const {
    tensor<T> v = output(op, s, in, name);
    auto e = output_error(op, s, in, name, v);
    return {std::move(v), std::move(e)};
  }
  // The outputs called `names` of one call of `op`, in that order, each with its allowance.
  std::vector<bounded> outputs_with_error(std::string_view op, const spec& s, const op_inputs& in, const std::vector<std::string_view>& names) const {
    auto all = run(op, s, in);
    std::vector<bounded> out;
    for (const auto name : names) {
      const auto it = std::find_if(all.begin(), all.end(), [&](const named_tensor<T>& o) { return o.name == name; });
      if (it == all.end()) throw input_error(fmt::format("{}: op '{}' returned no output '{}'", this->name(), op, name));
      auto e = output_error(op, s, in, name, it->value);
      out.push_back({std::move(it->value), std::move(e)});
    }
    return out;
  }
};

// The reference: run_op<T>, at binary64 or at the MPFR precision in force.
template <class T>
class reference_backend : public backend<T> {
 public:
  std::string name() const override { return "reference"; }
  std::vector<named_tensor<T>> run(std::string_view op, const spec& s, const op_inputs& in) const override {
    return run_op<T>(op, s, in);
  }

  // Each term rounded once to T.
  std::vector<named_tensor<T>> score_terms(const spec& s, const op_inputs& in) const override {
    std::vector<named_tensor<T>> out;
    for (const auto& term : pe::score_terms(s, in.attend)) {
      tensor<T> v(term.value.shape);
      for (size_t e = 0; e < v.data.size(); ++e) v.data[e] = store_as<T>(term.value.data[e]);
      out.push_back({term.name, std::move(v)});
    }
    return out;
  }
};

}  // namespace pe::props
