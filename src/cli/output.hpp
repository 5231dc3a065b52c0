// Formatting of op results as a table, JSON or CSV; decimal text for every scalar.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pecheck {

// An op's outputs already turned into decimal strings (so one printer serves every precision).
struct text_tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<std::string> data;
};

struct eval_result {
  std::string op;
  std::string spec;  // canonical text
  unsigned precision_bits;
  std::vector<std::int64_t> row_labels;  // positions, for the table and CSV row labels
  std::vector<text_tensor> outputs;
};

std::string format_table(const eval_result& r);
std::string format_json(const eval_result& r);
std::string format_csv(const eval_result& r);

}  // namespace pecheck
