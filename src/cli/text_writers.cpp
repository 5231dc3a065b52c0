// CSV and JSON writers that write each block of rows as it comes (the result is never held whole).
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/output.hpp"
#include "cli/output_target.hpp"

namespace pecheck {
namespace {

// Per output: a header line (the row title, then NAME[j] for each column), then one line per row:
// its label and its values.
class csv_writer final : public result_writer {
 public:
  explicit csv_writer(output_target& out) : out_(out) {}
  void begin_output(const output_head& h) override {
    head_ = h;
    std::string& out = out_.buffer();
    out += head_.row_title.empty() ? "row" : head_.row_title;
    for (std::int64_t j = 0; j < columns(head_); ++j) {
      if (head_.shape.empty()) out += "," + head_.name;
      else fmt::format_to(std::back_inserter(out), ",{}[{}]", head_.name, j);
    }
    out += "\n";
  }
  void write_rows(std::int64_t first_row, const value_block& values) override {
    std::string& out = out_.buffer();
    const auto nc = static_cast<std::size_t>(columns(head_));
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (k % nc == 0) append_label(out, head_, first_row + static_cast<std::int64_t>(k / nc));
      out += ',';
      values.append_text(out, k);
      if (k % nc == nc - 1) out += '\n';
    }
    out_.flush_if_full();
  }
  void end_output() override {}
  void finish() override {}

 private:
  output_target& out_;
  output_head head_;
};

// {"op":..,"spec":..,"precision":..,"outputs":{NAME:{"shape":[..],"data":["v",..]},..}} on one
// line, as nlohmann's dump() of the whole object prints it, written piece by piece: nlohmann
// quotes the names and the spec; the values are decimal text (digits, sign, point, exponent,
// inf, nan) that JSON strings hold without escapes, so they are quoted here.
class json_writer final : public result_writer {
 public:
  json_writer(const eval_head& h, output_target& out) : out_(out) {
    out_.buffer() += fmt::format(R"({{"op":{},"spec":{},"precision":{},"outputs":{{)", nlohmann::json(h.op).dump(),
                                 nlohmann::json(h.spec).dump(), nlohmann::json(h.precision_bits).dump());
  }
  void begin_output(const output_head& h) override {
    out_.buffer() += fmt::format(R"({}{}:{{"shape":{},"data":[)", outputs_++ ? "," : "", nlohmann::json(h.name).dump(),
                                 nlohmann::json(h.shape).dump());
    values_ = 0;
  }
  void write_rows(std::int64_t, const value_block& values) override {
    std::string& out = out_.buffer();
    for (std::size_t k = 0; k < values.size(); ++k) {
      out += values_++ ? ",\"" : "\"";
      values.append_text(out, k);
      out += '"';
    }
    out_.flush_if_full();
  }
  void end_output() override { out_.buffer() += "]}"; }
  void finish() override { out_.buffer() += "}}\n"; }

 private:
  output_target& out_;
  int outputs_ = 0;
  std::size_t values_ = 0;
};

}  // namespace

std::unique_ptr<result_writer> make_csv_writer(output_target& out) { return std::make_unique<csv_writer>(out); }
std::unique_ptr<result_writer> make_json_writer(const eval_head& h, output_target& out) { return std::make_unique<json_writer>(h, out); }

}  // namespace pecheck
