// Regression baselines as small diffable text: "key rest of line" lines, read back with their line numbers, and the growth rule.
#pragma once
#include <string>
#include <vector>

namespace pe::gate {

// One line of a baseline file: its first word and the rest (after one space), and where it is.
struct baseline_line {
  std::string key, rest;
  int line = 0;
};

// The lines of the baseline file `path` (blank lines and "#" comments skipped); input_error
// "--baseline 'PATH': ..." when it cannot be read, is empty or does not start with `header`
// (its first line, a comment naming the kind of baseline).
std::vector<baseline_line> read_baseline(const std::string& path, const std::string& header);

// A run against a baseline: what moved, one line each ("REGRESSED ...", "improved ..."), and
// whether anything regressed (the run then fails).
struct baseline_verdict {
  std::vector<std::string> moved;
  bool regressed = false;
  void regression(std::string line) { moved.push_back("REGRESSED " + line), regressed = true; }
  void improvement(std::string line) { moved.push_back("improved  " + line); }
  // "baseline FILE: N regression(s)" or "... no regression", then the moved lines indented.
  std::string text(const std::string& path) const;
};

// Whether a measure grew past `factor` times its baseline value, both raised to `floor` first:
// below the floor, differences are noise a correct change may make (rounding moving by an ulp).
bool grew_past(double before, double now, double factor, double floor);

// A number in a baseline: %.6g, enough to compare against a factor and short enough to diff.
std::string baseline_number(double v);
// Its reading; input_error naming the file and line.
double baseline_number_of(const std::string& text, const std::string& path, int line);

}  // namespace pe::gate
