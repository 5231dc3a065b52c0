// `pecheck diagnose`: which convention an implementation really computes. Its outputs on a fixed set of calls are
// compared with each variant of the neighbourhood (candidates.hpp); the best explains them within the least share of the bound.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/sandbox.hpp"

#include "gate/implementation.hpp"

namespace pe::audit {

struct diagnose_request {
  gate::implementation_flags implementation;
  std::string spec, dtype = "f32", working, tolerance = "standard";
  std::string op;  // "": the leading op the spec has (diagnosed_op)
  std::uint64_t seed = 20261203;
};

// How well one variant explains the outputs: the 99th percentile, over every element of every
// call, of |got - expected| / bound (the gate's bound for the variant's own outputs), and the
// worst. A percentile, so that a variant that differs from the implementation's arithmetic only
// where a rounding falls the other way (angles rounded to bf16) still fits.
struct candidate_fit {
  std::string name, label;
  double residual = 0, worst = 0;
};

struct diagnosis {
  std::string implementation, asked, op, dtype;
  std::int64_t calls = 0, elements = 0;
  std::int64_t non_finite = 0;        // output elements that are NaN or infinite: never as asked
  std::vector<candidate_fit> ranked;  // best first; ties keep the table's order ("as asked" first)
  std::vector<std::string> failed;    // calls that did not answer ok: "call N: status: message"
  gate::sandbox::protections sandbox;  // what protected the gate from it (the JSON's "sandbox", as the gate's)
  // "this implementation computes X although Y was asked; residual R of the bound; runner-up: ..."
  std::string sentence() const;
  nlohmann::json json() const;
  // Whether some call answered, every output is finite, and the best fit is the spec as asked,
  // within the bound.
  bool as_asked() const;
};

diagnosis diagnose(const diagnose_request& q);
diagnosis diagnose(const diagnose_request& q, gate::implementation& impl);

}  // namespace pe::audit
