// Formatting of op results as a table, JSON or CSV; decimal text for every scalar.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pecheck {

// An op's output already turned into decimal strings (so one printer serves every precision),
// with a label for each row of its last axis (positions, position/head pairs, or indices).
struct text_tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<std::string> data;
  std::string row_title;                // "pos", "pos/head", "row", or "" for one unlabelled row
  std::vector<std::string> row_labels;  // one per row of shape[-1] values
};

struct eval_result {
  std::string op;
  std::string spec;  // canonical text
  unsigned precision_bits;
  std::vector<text_tensor> outputs;
};

std::string format_table(const eval_result& r);
std::string format_json(const eval_result& r);
std::string format_csv(const eval_result& r);

}  // namespace pecheck
