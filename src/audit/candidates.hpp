// The neighbourhood `pecheck diagnose` searches: one table of conventions an implementation may really compute, each a
// spec or a small transform of the reference (of its inputs, its outputs, the call's length, or its angles).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe::audit {

// One convention: what the outputs are if the implementation computes it.
struct variant {
  std::string name;   // its id in the table and the mutants' expectations: "layout=gptj", "positions+1"
  std::string label;  // what it computes in full, for the JSON: "rope(dim=64, ..., layout=gptj)"
  // The bug it is, in plain English (variant_words_columns at most), for the sentence: "GPT-J's interleaved
  // pairs instead of NeoX's rotate-half pairs" (no spec text, no list: the label has those).
  std::string words;
  spec s;             // the spec whose reference it follows
  std::function<op_inputs(const op_inputs&)> inputs;                     // how it reads the inputs (empty: as given)
  std::function<std::int64_t(std::int64_t)> seq_len;                     // rotate's call length as it reads it (empty: as is)
  // Its own model of the op (empty: the reference): the output, or for an op with several outputs
  // (rotate_qk) their values in order, concatenated.
  std::function<tensor<double>(const op_inputs&)> compute;
  std::function<void(const op_inputs&, tensor<double>&)> outputs;        // what it does to the outputs after (empty: nothing)
  // The head's dims in the order it turns them (the rotary window at the end of the head): it reads
  // x's dim dims[d] as dim d, and its outputs, and so their bound, are in that order (empty: as given).
  std::vector<std::int64_t> dims;
};

// The longest variant::words: the sentence's clause that names it then fits its 120 columns.
inline constexpr std::size_t variant_words_columns = 68;

// The variants of `s` for `op`, the first being the spec as asked, then other specs and transforms
// of the inputs and outputs, then models of the arithmetic (angles or cos and sin rounded, iterated
// products): the diagnosis prefers the earliest of those that fit within the bound. A candidate that
// does not apply to s (no such parameter, no attention factor, ...) adds none.
std::vector<variant> neighbourhood(const spec& s, const std::string& op);

// The op's first output under variant v for inputs `in` (rounded to the I/O dtype), in binary64,
// and the inputs as the variant read them (its bound is computed on those).
struct expected {
  op_inputs read;
  tensor<double> output;  // the op's one output, or its outputs' values in order, concatenated
  // Where the variant reorders dims (variant::dims): output element e is the implementation's
  // element at[e] (empty: element e).
  std::vector<std::size_t> at;
};
expected expected_output(const variant& v, const std::string& op, const op_inputs& in);
// The outputs' values in order, as one tensor: the output itself where there is one.
tensor<double> concatenated(std::vector<named_tensor<double>> outputs);

}  // namespace pe::audit
