// Random specs and inputs for the laws: every scheme with valid random parameters, positions weighted to the hard places.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <rapidcheck.h>

namespace pe::props {

// ---- specs (canonical-ish text; the parser fills the defaults) ----
rc::Gen<std::string> gen_dim_spec(const std::string& scheme);  // scheme(dim=1..16): integer
rc::Gen<std::string> gen_normalized_spec();
rc::Gen<std::string> gen_binary_spec();
rc::Gen<std::string> gen_learned_spec();
rc::Gen<std::string> gen_none_spec();
rc::Gen<std::string> gen_sinusoidal_spec();
// RoPE with any layout, partial rotary, p-RoPE truncation and scaling. Scalings that read the
// call's sequence length (dynamic, longrope) get an explicit seq_len so that frequencies do not
// change between calls: laws compare calls at different positions.
rc::Gen<std::string> gen_rope_spec();
struct rope_options {
  std::string scaling = "any";  // "any", "none", or one kind ("linear", ..., "longrope")
  bool partial = false;         // force rotary_dim < dim
  bool truncate_low = true;     // allow p-RoPE truncation (one spec in eight)
  bool integer_factor = false;  // linear/ntk/...: factor an integer 1..16
  std::int64_t min_base = 10;   // raise the smallest base (YaRN's correction range must fall inside the head)
};
rc::Gen<std::string> gen_rope_spec(const rope_options& options);
rc::Gen<std::string> gen_rope_nd_spec();
rc::Gen<std::string> gen_mrope_spec();
rc::Gen<std::string> gen_alibi_spec();  // both causal forms
rc::Gen<std::string> gen_alibi_spec(bool causal);
rc::Gen<std::string> gen_t5_spec();
rc::Gen<std::string> gen_shaw_spec();
rc::Gen<std::string> gen_txl_spec();
rc::Gen<std::string> gen_deberta_spec();
// Each family file registers a generator for each of its schemes, next to its laws
// (std::logic_error on a second one for the same scheme).
struct spec_generator_registration {
  spec_generator_registration(std::string scheme, std::function<rc::Gen<std::string>()> make);
};
bool has_spec_generator(const std::string& scheme);
// Random specs of a scheme by name (std::logic_error when none is registered); with `causal`
// false, only specs that attend without the causal mask (not alibi(causal=true)).
rc::Gen<std::string> gen_spec_of(const std::string& scheme);
rc::Gen<std::string> gen_spec_of(const std::string& scheme, bool causal);
// One scaling of the given kind for rotary_dim r ("linear", "ntk", "dynamic", "yarn", "llama3", "longrope").
rc::Gen<std::string> gen_scaling(const std::string& kind, std::int64_t rotary);

// ---- inputs ----
// A position in [0, max], weighted to 0 and 1, small positions, and the hard places: 255..257
// (bf16 stops counting integers at 256), 2^24 +- 2 (binary32 at 2^24), 2^31 - 1 +- 1 (int32), 2^40.
rc::Gen<std::int64_t> gen_position(std::int64_t max = std::int64_t{1} << 40);
// n values k * 2^-e with |k| < 2^20 and one exponent per vector: exactly representable in
// binary32 and binary64, magnitudes from 2^-8 to 2^8, so sums of a few of them stay exact.
rc::Gen<std::vector<double>> gen_vector(std::int64_t n);
// A permutation of 0 .. n-1.
rc::Gen<std::vector<std::int64_t>> gen_permutation(std::int64_t n);

// Tags for RC_CLASSIFY: which hard place a position hit ("p<256", "p>=2^24", ...).
std::string position_class(std::int64_t p);

}  // namespace pe::props
