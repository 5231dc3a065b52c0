// The table printer, the choice of writer by format, and what the writers share.
#include "cli/output.hpp"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>

#include "cli/output_target.hpp"

namespace pecheck {

std::int64_t columns(const output_head& h) { return h.shape.empty() ? 1 : h.shape.back(); }

void append_label(std::string& out, const output_head& h, std::int64_t row) {
  if (h.append_label) h.append_label(out, row);
  else fmt::format_to(std::back_inserter(out), "{}", row);
}

namespace {

// text right-aligned to width, as fmt's "{:>{}}" does for the ASCII of labels and decimals, without
// parsing a format per cell (a table has up to 2^22 of them).
void append_right(std::string& out, std::string_view text, std::size_t width) {
  out.append(width > text.size() ? width - text.size() : 0, ' ');
  out += text;
}

// Pieces of text appended one after another into one string (no string per value: 2^22 values
// would otherwise be 2^22 allocations), each found again by its index.
class text_pieces {
 public:
  std::string& text() { return text_; }
  void close_piece() { ends_.push_back(text_.size()); }
  std::size_t size() const { return ends_.size(); }
  std::string_view operator[](std::size_t i) const {
    const std::size_t start = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(text_).substr(start, ends_[i] - start);
  }
  std::size_t widest(std::size_t at_least) const {
    for (std::size_t i = 0; i < size(); ++i) at_least = std::max(at_least, (*this)[i].size());
    return at_least;
  }
  void clear() {
    text_.clear();
    ends_.clear();
  }

 private:
  std::string text_;
  std::vector<std::size_t> ends_;
};

// The table right-aligns every value to the widest: it keeps the result's text until the end, and
// eval caps what it prints this way (eval_stream.cpp).
class table_writer final : public result_writer {
 public:
  table_writer(const eval_head& h, output_target& out) : out_(out) {
    out_.buffer() += fmt::format("{} {}  [{} bits]\n", h.op, h.spec, h.precision_bits);
  }
  void begin_output(const output_head& h) override {
    head_ = h;
    values_.clear();
    labels_.clear();
  }
  void write_rows(std::int64_t first_row, const value_block& values) override {
    const std::int64_t nc = columns(head_);
    for (std::size_t k = 0; k < values.size(); ++k) {
      if (nc > 0 && k % static_cast<std::size_t>(nc) == 0) {
        append_label(labels_.text(), head_, first_row + static_cast<std::int64_t>(k) / nc);
        labels_.close_piece();
      }
      values.append_text(values_.text(), k);
      values_.close_piece();
    }
  }
  void end_output() override {
    if (head_.shape.size() == 1) return end_column();
    auto out = std::back_inserter(out_.buffer());
    const auto nc = static_cast<std::size_t>(columns(head_));
    const std::size_t width = values_.widest(1), label_width = labels_.widest(head_.row_title.size());
    fmt::format_to(out, "{} [{}]\n", head_.name, fmt::join(head_.shape, ", "));
    fmt::format_to(out, "{:>{}} |", head_.row_title, label_width);
    for (std::size_t j = 0; j < nc; ++j) {
      fmt::format_to(out, " {:>{}}", head_.shape.empty() ? head_.name : fmt::format("{}[{}]", head_.name, j), width);
    }
    out_.buffer() += "\n";
    for (std::size_t i = 0; i < labels_.size(); ++i) {
      std::string& line = out_.buffer();
      append_right(line, labels_[i], label_width);
      line += " |";
      for (std::size_t j = 0; j < nc; ++j) {
        line += ' ';
        append_right(line, values_[i * nc + j], width);
      }
      line += '\n';
      // Every output is computed by now (eval runs an op before writing it), so only a write can
      // still fail: the text may go out in blocks instead of doubling the memory held.
      out_.flush_if_full();
    }
  }
  void finish() override {}

 private:
  // A 1-D output (inv_freq [pairs], a row of biases) as a column: one line per index and its
  // value, not one line as wide as the output.
  void end_column() {
    const std::size_t width = values_.widest(head_.name.size());
    const std::size_t index_width = std::max<std::size_t>(1, fmt::formatted_size("{}", std::max<std::size_t>(values_.size(), 1) - 1));
    auto out = std::back_inserter(out_.buffer());
    fmt::format_to(out, "{} [{}]\n{:>{}} | {:>{}}\n", head_.name, head_.shape[0], "i", index_width, head_.name, width);
    for (std::size_t i = 0; i < values_.size(); ++i) {
      std::string& line = out_.buffer();
      fmt::format_to(std::back_inserter(line), "{:>{}} | ", i, index_width);
      append_right(line, values_[i], width);
      line += '\n';
      out_.flush_if_full();
    }
  }

  output_target& out_;
  output_head head_;
  text_pieces values_, labels_;
};

}  // namespace

bool format_streams(const std::string& format) { return format != "table"; }

std::unique_ptr<result_writer> make_writer(const std::string& format, const eval_head& h, output_target& out) {
  if (format == "table") return std::make_unique<table_writer>(h, out);
  if (format == "csv") return make_csv_writer(out);
  if (format == "json") return make_json_writer(h, out);
  if (format == "npy") return make_npy_writer(out);
  throw std::logic_error("make_writer: unknown format " + format);
}

}  // namespace pecheck
