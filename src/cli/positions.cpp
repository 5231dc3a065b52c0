// Parsing of --positions lists.
#include "cli/positions.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pecheck {
namespace {

std::int64_t parse_int(std::string_view item, std::string_view whole, std::string_view flag) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
  if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
    throw pe::input_error(fmt::format("{} '{}': '{}' is not a 64-bit integer", flag, pe::excerpt(whole), pe::excerpt(item)));
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

namespace {

// Calls item(a, b) for each comma-separated item of text: a single position p as (p, p + 1), a
// range a:b as (a, b) (b > a). Parses and checks the text without expanding it.
template <class Item>
void for_each_item(std::string_view text, std::string_view flag, const Item& item) {
  if (text.empty()) throw pe::input_error(fmt::format("{} is empty; give a list like 0,1,2 or a range like 0:3", flag));
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view piece = text.substr(start, comma - start);
    const size_t colon = piece.find(':');
    if (colon == std::string_view::npos) {
      item(parse_int(piece, text, flag), std::nullopt);
    } else {
      const std::int64_t a = parse_int(piece.substr(0, colon), text, flag);
      const std::int64_t b = parse_int(piece.substr(colon + 1), text, flag);
      if (b <= a) throw pe::input_error(fmt::format("{} '{}': range {} is empty (a:b means a <= p < b)", flag, pe::excerpt(text), piece));
      item(a, b);
    }
    start = comma + 1;
  }
}

}  // namespace

std::uint64_t count_positions(std::string_view text, std::string_view flag) {
  std::uint64_t n = 0;
  for_each_item(text, flag, [&](std::int64_t a, std::optional<std::int64_t> b) {
    // b - a in unsigned arithmetic: exact for b > a, even across the whole int64 range; the sum
    // saturates (a list of many huge ranges).
    const std::uint64_t count = b ? static_cast<std::uint64_t>(*b) - static_cast<std::uint64_t>(a) : 1;
    n = count > std::numeric_limits<std::uint64_t>::max() - n ? std::numeric_limits<std::uint64_t>::max() : n + count;
  });
  return n;
}

std::vector<std::int64_t> parse_positions(std::string_view text, std::string_view flag) {
  // Counted and checked before anything is allocated; then expanded into a vector of that size.
  const std::uint64_t n = count_positions(text, flag);
  pe::check_limit(pe::limit::list, n, fmt::format("{}: positions", flag));
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(n));
  for_each_item(text, flag, [&](std::int64_t a, std::optional<std::int64_t> b) {
    if (!b) return out.push_back(a);
    for (std::int64_t p = a; p < *b; ++p) out.push_back(p);
  });
  return out;
}

}  // namespace pecheck
