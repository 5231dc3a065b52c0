// The golden case definitions: every scheme and op, the RoPE configurations real models ship, the hard positions, the seeds' worked examples.
#pragma once
#include <string>
#include <vector>

#include "golden/golden_file.hpp"
#include "pe/ops.hpp"

namespace pe::golden {

struct case_def {
  std::string id;
  op_inputs in;
};

// One golden file: where it goes under golden/, what it mirrors, and its cases.
struct case_set {
  std::string path;     // e.g. "rope/llama3_8b.json"
  std::string comment;  // which model or seed it mirrors
  std::string op;
  std::string spec;     // canonical text after parsing
  std::vector<case_def> cases;
};

const std::vector<case_set>& case_sets();

// The positions every position-taking set visits: 0, 1, 255, 256, 257 (bf16 stops counting
// integers at 256), 2^24 +- 1 (binary32 at 2^24), 2^31 - 1 (int32), 2^40.
const std::vector<std::int64_t>& hard_positions();

// The file a set produces at `bits`: inputs as given, outputs from the reference in MPFR.
golden_file compute(const case_set& set, unsigned bits);

// The generator string stored in every file ("pecheck 0.1.0").
std::string generator_name();

}  // namespace pe::golden
