// The golden file format (pecheck-golden/1): exact binary64 inputs, 45-digit decimal outputs, and its strict reader.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pe/ops.hpp"
#include "pe/spec.hpp"

namespace pe::golden {

inline constexpr const char* format_name = "pecheck-golden/1";
// Digits after the point of every output (%.45e: 46 significant digits), ten past verify's 1e-35 drift limit.
inline constexpr int output_digits = 45;
// The precisions a file or MANIFEST.json may state. 53: below binary64 the exact inputs would not
// even round-trip. 2^16: the 46 stored digits hold about 153 bits, so nothing above a few hundred
// bits shows in a file; verify recomputes every value at the stated precision and 64 bits more,
// which at 2^16 bits already takes 17 s for rope/llama2_7b.json (0.1 s at 256) and grows faster
// than the precision: a typo of 2^30 must be refused, not computed for hours.
inline constexpr std::int64_t min_precision_bits = 53, max_precision_bits = std::int64_t{1} << 16;

// A tensor as stored: inputs are "i64" (integers) or "f64" (C99 hex floats, exact in binary64);
// outputs are decimal strings (46 significant digits). data holds the JSON text of each element.
struct golden_tensor {
  std::string name;
  std::string dtype;  // inputs: i64 or f64; outputs: decimal
  std::vector<std::int64_t> shape;
  std::vector<std::string> data;
};

struct golden_case {
  std::string id;
  std::vector<golden_tensor> inputs, outputs;
};

struct golden_file {
  std::string op, spec, generator, comment;
  unsigned precision_bits = 256;
  std::vector<golden_case> cases;
};

// Canonical text: the same file gives the same bytes (regen with no change is a no-op diff).
std::string to_text(const golden_file& f);

// Reads and validates a file; every error is one line naming `where` (the file), the case and
// the element: format, a spec that parses, shapes that match the data, numbers that parse.
golden_file parse_golden(const std::string& text, const std::string& where);
// A golden file's op and spec, read from its head without reading its cases (the writer puts them
// first); nothing if the text does not give both as strings, whose full parse then says why.
struct golden_head {
  std::string op, spec;
};
std::optional<golden_head> read_head(const std::string& text);

// The inputs of a case by the op table's names (pe/op_schema.hpp), and back; errors name `where`,
// the case and the tensor.
std::vector<golden_tensor> input_tensors(std::string_view op, const spec& s, const op_inputs& in);
op_inputs op_inputs_of(std::string_view op, const spec& s, const golden_case& c, const std::string& where);

// Decimal text of x with output_digits digits after the point, and a binary64 as C99 hex text.
std::string decimal_text(const mp_real& x);
std::string hex_text(double x);
// |a - b| / max(|a|, |b|), and 0 when both are 0: how far a stored output moved.
double relative_change(const mp_real& a, const mp_real& b);

}  // namespace pe::golden
