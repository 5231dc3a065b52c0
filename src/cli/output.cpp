// Table, JSON and CSV printers for eval results.
#include "cli/output.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace pecheck {
namespace {

// Every output prints as rows of its last axis (a scalar is one row of one value).
std::int64_t cols(const text_tensor& t) { return t.shape.empty() ? 1 : t.shape.back(); }
std::int64_t rows(const text_tensor& t) { return cols(t) == 0 ? 0 : static_cast<std::int64_t>(t.data.size()) / cols(t); }

std::string label(const text_tensor& t, std::int64_t row) {
  return row < static_cast<std::int64_t>(t.row_labels.size()) ? t.row_labels[row] : fmt::format("{}", row);
}

}  // namespace

std::string format_table(const eval_result& r) {
  std::string out = fmt::format("{} {}  [{} bits]\n", r.op, r.spec, r.precision_bits);
  for (const auto& t : r.outputs) {
    const std::int64_t nr = rows(t), nc = cols(t);
    size_t width = 1;
    for (const auto& s : t.data) width = std::max(width, s.size());
    size_t label_width = t.row_title.size();
    for (std::int64_t i = 0; i < nr; ++i) label_width = std::max(label_width, label(t, i).size());
    out += fmt::format("{} [{}]\n", t.name, fmt::join(t.shape, ", "));
    out += fmt::format("{:>{}} |", t.row_title, label_width);
    for (std::int64_t j = 0; j < nc; ++j) {
      out += fmt::format(" {:>{}}", t.shape.empty() ? t.name : fmt::format("{}[{}]", t.name, j), width);
    }
    out += "\n";
    for (std::int64_t i = 0; i < nr; ++i) {
      out += fmt::format("{:>{}} |", label(t, i), label_width);
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
    out += t.row_title.empty() ? "row" : t.row_title;
    for (std::int64_t j = 0; j < nc; ++j) out += t.shape.empty() ? "," + t.name : fmt::format(",{}[{}]", t.name, j);
    out += "\n";
    for (std::int64_t i = 0; i < nr; ++i) {
      out += label(t, i);
      for (std::int64_t j = 0; j < nc; ++j) out += "," + t.data[static_cast<size_t>(i * nc + j)];
      out += "\n";
    }
  }
  return out;
}

}  // namespace pecheck
