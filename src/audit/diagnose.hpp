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
  std::string name, label, words;  // the variant's (candidates.hpp)
  double residual = 0, worst = 0;
};

struct diagnosis {
  std::string implementation, asked, op, dtype;
  std::int64_t calls = 0, elements = 0;
  std::int64_t non_finite = 0;        // output elements that are NaN or infinite: never as asked
  std::string non_finite_at;          // where they are, in words (non_finite.hpp); "" when there are none
  // Best first; ties keep the table's order ("as asked" first). The residuals are over the finite
  // outputs: non_finite_at names the rest.
  std::vector<candidate_fit> ranked;
  std::vector<std::string> failed;    // calls that did not answer ok: "call N: status: message"
  gate::sandbox::protections sandbox;  // what protected the gate from it (the JSON's "sandbox", as the gate's)
  // At most sentence_columns characters, naming the best fit by its words: "not as asked: GPT-J's
  // interleaved pairs instead of NeoX's rotate-half pairs (residual 0.0279 of the bound); runner-up:
  // ..." (the runner-up where it fits). The specs, every residual and the runner-up are in json().
  std::string sentence() const;
  nlohmann::json json() const;
  // Whether some call answered, every output is finite, and the best fit is the spec as asked,
  // within the bound.
  bool as_asked() const;
};

// The widest sentence (variant::words are short enough that the best fit's always fits in it).
inline constexpr std::size_t sentence_columns = 120;

diagnosis diagnose(const diagnose_request& q);
diagnosis diagnose(const diagnose_request& q, gate::implementation& impl);

}  // namespace pe::audit
