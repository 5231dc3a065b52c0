// Drawn cases in short labelled lines (see case_text.hpp).
#include "properties/case_text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace pe::props {

namespace {
// The elements of "[a, b, c]" (scalars: none holds ", " itself), or none for other text.
std::vector<std::string> list_elements(const std::string& value) {
  std::vector<std::string> out;
  if (value.size() < 2 || value.front() != '[' || value.back() != ']') return out;
  const std::string inner = value.substr(1, value.size() - 2);
  for (std::size_t start = 0; start <= inner.size();) {
    const std::size_t comma = inner.find(", ", start);
    out.push_back(inner.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 2;
  }
  return out;
}

bool is_zero(const std::string& e) { return e == "0" || e == "-0" || e == "0.0" || e == "false"; }
}  // namespace

std::string short_value(const std::string& value, std::size_t limit) {
  if (value.size() <= limit) return value;
  const auto elements = list_elements(value);
  if (elements.empty()) return value.substr(0, limit > 3 ? limit - 3 : 0) + "...";
  const std::size_t n = elements.size();
  const std::size_t nonzero = static_cast<std::size_t>(std::count_if(elements.begin(), elements.end(), [](const auto& e) { return !is_zero(e); }));
  if (nonzero * 4 <= n) {  // mostly zeros: say where the others are
    std::string out = nonzero == 0 ? fmt::format("[{} values, all 0]", n) : fmt::format("[{} values, 0 but", n);
    std::size_t shown = 0;
    for (std::size_t i = 0; i < n && nonzero > 0; ++i) {
      if (is_zero(elements[i])) continue;
      std::string next = fmt::format("{} [{}] = {}", shown == 0 ? "" : ",", i, elements[i]);
      const std::string rest = shown + 1 < nonzero ? fmt::format(", ... {} more]", nonzero - shown - 1) : "]";
      if (out.size() + next.size() + rest.size() > limit && shown > 0) {
        out += fmt::format(", ... {} more]", nonzero - shown);
        return out;
      }
      out += next;
      ++shown;
    }
    return nonzero == 0 ? out : out + "]";
  }
  std::string out = "[";
  const std::string tail = fmt::format("... {} values]", n);
  for (std::size_t i = 0; i < n; ++i) {
    if (out.size() + elements[i].size() + 2 + tail.size() > limit) break;
    out += elements[i] + ", ";
  }
  return out + tail;
}

std::string case_lines(const drawn_case& drawn, std::size_t lead, std::size_t indent, std::size_t width) {
  std::string out, line;
  std::size_t column = lead;
  for (const auto& [name, value] : drawn) {
    const bool first = line.empty() && out.empty();
    // A value gets the room of its line, less its name and the ";" that may follow: every part fits
    // a line of its own (the first on the line already begun).
    const std::size_t start = first ? lead : indent;
    const std::size_t room = width > start + name.size() + 4 ? width - start - name.size() - 4 : 0;
    const std::string part = fmt::format("{} = {}", name, short_value(value, std::max<std::size_t>(room, 24)));
    if (!first && column + 2 + part.size() > width) {
      out += line + ";\n";
      line = std::string(indent, ' ') + part;
      column = indent + part.size();
    } else {
      line += (first ? "" : "; ") + part;
      column += (first ? 0 : 2) + part.size();
    }
  }
  return out + line;
}

}  // namespace pe::props
