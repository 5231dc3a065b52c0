// Parsing of --pos lists.
#include "cli/positions.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pecheck {
namespace {

std::int64_t parse_int(std::string_view item, std::string_view whole, std::string_view flag) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
  if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
    throw pe::input_error(fmt::format("{} '{}': '{}' is not a 64-bit integer", flag, whole, item));
  }
  return v;
}

}  // namespace

std::optional<double> parse_finite_double(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<std::int64_t> parse_positions(std::string_view text, std::string_view flag) {
  std::vector<std::int64_t> out;
  if (text.empty()) throw pe::input_error(fmt::format("{} is empty; give a list like 0,1,2 or a range like 0:3", flag));
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      out.push_back(parse_int(item, text, flag));
    } else {
      const std::int64_t a = parse_int(item.substr(0, colon), text, flag);
      const std::int64_t b = parse_int(item.substr(colon + 1), text, flag);
      if (b <= a) throw pe::input_error(fmt::format("{} '{}': range {} is empty (a:b means a <= p < b)", flag, text, item));
      // b - a in unsigned arithmetic: exact for b > a, even across the whole int64 range.
      const std::uint64_t count = static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
      if (count > static_cast<std::uint64_t>(max_positions) - out.size()) {
        throw pe::input_error(fmt::format("{} '{}': more than {} positions", flag, text, max_positions));
      }
      for (std::int64_t p = a; p < b; ++p) out.push_back(p);
    }
    if (static_cast<std::int64_t>(out.size()) > max_positions) {
      throw pe::input_error(fmt::format("{} '{}': more than {} positions", flag, text, max_positions));
    }
    start = comma + 1;
  }
  return out;
}

}  // namespace pecheck
