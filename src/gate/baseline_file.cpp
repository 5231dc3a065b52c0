// Baseline files' lines and the growth rule (see baseline_file.hpp).
#include "gate/baseline_file.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "pe/bounded_file.hpp"
#include "pe/error.hpp"

namespace pe::gate {

std::vector<baseline_line> read_baseline(const std::string& path, const std::string& header) {
  std::istringstream in(read_bounded_file(path, fmt::format("--baseline '{}'", path)));
  std::vector<baseline_line> out;
  std::string text;
  int number = 0;
  bool headed = false;
  while (std::getline(in, text)) {
    ++number;
    if (number == 1) {
      if (text != header) throw input_error(fmt::format("--baseline '{}': its first line is not '{}'", path, header));
      headed = true;
      continue;
    }
    if (text.empty() || text[0] == '#') continue;
    const std::size_t space = text.find(' ');
    out.push_back({text.substr(0, space), space == std::string::npos ? "" : text.substr(space + 1), number});
  }
  if (!headed) throw input_error(fmt::format("--baseline '{}': the file is empty", path));
  return out;
}

bool grew_past(double before, double now, double factor, double floor) {
  if (std::isnan(now)) return !std::isnan(before);
  return std::max(now, floor) > factor * std::max(before, floor);
}

std::string baseline_verdict::text(const std::string& path) const {
  int regressions = 0;
  for (const auto& m : moved) regressions += m.starts_with("REGRESSED");
  std::string out = regressed ? fmt::format("baseline {}: {} regression(s)\n", path, regressions) : fmt::format("baseline {}: no regression\n", path);
  for (const auto& m : moved) out += "  " + m + "\n";
  return out;
}

std::string baseline_number(double v) { return fmt::format("{:.6g}", v); }

double baseline_number_of(const std::string& text, const std::string& path, int line) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) {
    throw input_error(fmt::format("--baseline '{}' line {}: '{}' is not a number", path, line, text));
  }
  return v;
}

}  // namespace pe::gate
