// Formatting of op results as a table, JSON, CSV or .npy, written as the rows arrive.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/value_block.hpp"

namespace pecheck {

class output_target;

// An output as the printers see it: name, full shape, and a label for each row of its last axis.
struct output_head {
  std::string name;
  std::vector<std::int64_t> shape;
  std::string row_title;  // "pos", "pos/head", "row", or "" for one unlabelled row
  // Appends row r's label (positions, position/head pairs); empty: the row's index.
  std::function<void(std::string&, std::int64_t)> append_label;
};

// What every printed result names first.
struct eval_head {
  std::string op;
  std::string spec;  // canonical text
  unsigned precision_bits;
};

// Receives an eval result output by output, each as consecutive blocks of whole rows, and writes
// it to the target in its format. The text ones stream (csv, json), so do the bytes of .npy; the
// table needs every value's width first and so holds the whole result until finish().
class result_writer {
 public:
  virtual ~result_writer() = default;
  virtual void begin_output(const output_head& h) = 0;
  // The next rows of the current output, starting at row first_row.
  virtual void write_rows(std::int64_t first_row, const value_block& values) = 0;
  virtual void end_output() = 0;
  virtual void finish() = 0;
};

// format: table, json, csv or npy (one binary64 output; eval checks that before computing).
std::unique_ptr<result_writer> make_writer(const std::string& format, const eval_head& h, output_target& out);

// The writers of each format (output.cpp, text_writers.cpp, npy_writer.cpp), and what they share:
// the values per row (a scalar is one row of one value) and row r's label.
std::unique_ptr<result_writer> make_csv_writer(output_target& out);
std::unique_ptr<result_writer> make_json_writer(const eval_head& h, output_target& out);
std::unique_ptr<result_writer> make_npy_writer(output_target& out);
// --format npy --output DIR: DIR/NAME.npy for each output, all appearing when the last is complete
// (DIR is created when missing; an existing file there is an input_error).
std::unique_ptr<result_writer> make_npy_directory_writer(const std::string& dir);
std::int64_t columns(const output_head& h);
void append_label(std::string& out, const output_head& h, std::int64_t row);

// Whether a format streams (holds one block at a time) rather than holding the whole result.
bool format_streams(const std::string& format);

}  // namespace pecheck
