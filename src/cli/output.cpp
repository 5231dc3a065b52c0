// Table, JSON and CSV printers for eval results.
#include "cli/output.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pecheck {
namespace {

// Rows of a rank-2 output (rank-1 is one row); each row is labelled by its position.
std::int64_t rows(const text_tensor& t) { return t.shape.size() == 2 ? t.shape[0] : 1; }
std::int64_t cols(const text_tensor& t) { return t.shape.empty() ? 1 : t.shape.back(); }

std::string row_label(const eval_result& r, std::int64_t row) {
  return row < static_cast<std::int64_t>(r.row_labels.size()) ? fmt::format("{}", r.row_labels[row])
                                                             : fmt::format("{}", row);
}

}  // namespace

std::string format_table(const eval_result& r) {
  std::string out = fmt::format("{} {}  [{} bits]\n", r.op, r.spec, r.precision_bits);
  for (const auto& t : r.outputs) {
    const std::int64_t nr = rows(t), nc = cols(t);
    size_t width = 1;
    for (const auto& s : t.data) width = std::max(width, s.size());
    size_t label_width = 3;
    for (std::int64_t i = 0; i < nr; ++i) label_width = std::max(label_width, row_label(r, i).size());
    out += fmt::format("{} [{}]\n", t.name, fmt::join(t.shape, ", "));
    out += fmt::format("{:>{}} |", "pos", label_width);
    for (std::int64_t j = 0; j < nc; ++j) out += fmt::format(" {:>{}}", fmt::format("{}[{}]", t.name, j), width);
    out += "\n";
    for (std::int64_t i = 0; i < nr; ++i) {
      out += fmt::format("{:>{}} |", row_label(r, i), label_width);
      for (std::int64_t j = 0; j < nc; ++j) out += fmt::format(" {:>{}}", t.data[static_cast<size_t>(i * nc + j)], width);
      out += "\n";
    }
  }
  return out;
}

std::string format_json(const eval_result& r) {
  nlohmann::ordered_json j;
  j["op"] = r.op;
  j["spec"] = r.spec;
  j["precision"] = r.precision_bits;
  nlohmann::ordered_json outputs = nlohmann::ordered_json::object();
  for (const auto& t : r.outputs) outputs[t.name] = {{"shape", t.shape}, {"data", t.data}};
  j["outputs"] = outputs;
  return j.dump() + "\n";
}

std::string format_csv(const eval_result& r) {
  std::string out;
  for (const auto& t : r.outputs) {
    const std::int64_t nr = rows(t), nc = cols(t);
    out += "pos";
    for (std::int64_t j = 0; j < nc; ++j) out += fmt::format(",{}[{}]", t.name, j);
    out += "\n";
    for (std::int64_t i = 0; i < nr; ++i) {
      out += row_label(r, i);
      for (std::int64_t j = 0; j < nc; ++j) out += "," + t.data[static_cast<size_t>(i * nc + j)];
      out += "\n";
    }
  }
  return out;
}

}  // namespace pecheck
