// Parsing and indexing of an audit's positions (see position_set.hpp).
#include "audit/position_set.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pe::audit {
namespace {

// The most positions a log set may list (each is kept in memory).
constexpr std::int64_t log_set_limit = std::int64_t{1} << 20;

// A non-negative number: decimal, or 2^k for 0 <= k <= 62.
std::int64_t parse_number(std::string_view item, std::string_view whole) {
  const auto fail = [&] {
    return input_error(fmt::format("--positions '{}': '{}' is not an integer from 0 to 2^62 or 2^k (k <= 62)", whole, item));
  };
  std::int64_t v = 0;
  const bool power = item.starts_with("2^");
  const std::string_view digits = power ? item.substr(2) : item;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || v < 0) throw fail();
  if (!power) {
    if (v > (std::int64_t{1} << 62)) throw fail();  // below 2^62: index arithmetic stays far from overflow
    return v;
  }
  if (v > 62) throw fail();
  return std::int64_t{1} << v;
}

std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = text.find(':', start);
    out.push_back(text.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (colon == std::string_view::npos) return out;
    start = colon + 1;
  }
}

}  // namespace

position_set position_set::parse(std::string_view text) {
  const auto parts = split(text);
  position_set set;
  if (parts.size() == 2) {
    set.begin_ = parse_number(parts[0], text), set.end_ = parse_number(parts[1], text);
    if (set.end_ <= set.begin_) throw input_error(fmt::format("--positions '{}': the range is empty (a:b means a <= p < b)", text));
    set.text_ = fmt::format("{}:{}", set.begin_, set.end_);
    return set;
  }
  if (parts.size() != 4 || parts[0] != "log") {
    throw input_error(fmt::format("--positions '{}': give a range a:b (a <= p < b) or a log-spaced set log:a:b:N", text));
  }
  const std::int64_t a = parse_number(parts[1], text), b = parse_number(parts[2], text), n = parse_number(parts[3], text);
  if (b <= a) throw input_error(fmt::format("--positions '{}': b must be above a", text));
  if (n < 2 || n > log_set_limit) throw input_error(fmt::format("--positions '{}': N must be 2 to {}", text, log_set_limit));
  const std::int64_t from = std::max<std::int64_t>(a, 1);
  const std::int64_t spaced = a == 0 ? n - 1 : n;  // from 0: the point 0, then N - 1 from 1
  if (a == 0) set.listed_.push_back(0);
  const double lo = std::log2(static_cast<double>(from)), hi = std::log2(static_cast<double>(b));
  for (std::int64_t i = 0; i < spaced; ++i) {
    // The ends exactly; between them the nearest integer to the log-spaced point.
    const std::int64_t p = i == spaced - 1 ? b  // the last first: from 0 with N = 2 the one spaced point is b
                           : i == 0         ? from
                                            : std::llround(std::exp2(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(spaced - 1)));
    if (set.listed_.empty() || p > set.listed_.back()) set.listed_.push_back(p);
  }
  set.text_ = fmt::format("log:{}:{}:{}", a, b, n);
  return set;
}

std::int64_t position_set::size() const { return listed_.empty() ? end_ - begin_ : static_cast<std::int64_t>(listed_.size()); }

std::int64_t position_set::at(std::int64_t index) const {
  return listed_.empty() ? begin_ + index : listed_[static_cast<std::size_t>(index)];
}

shard shard::parse(std::string_view text) {
  const std::size_t slash = text.find('/');
  shard s;
  const auto number = [&](std::string_view item, std::int64_t& v) {
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    return !item.empty() && ec == std::errc() && end == item.data() + item.size();
  };
  if (slash == std::string_view::npos || !number(text.substr(0, slash), s.index) || !number(text.substr(slash + 1), s.count) || s.count < 1 ||
      s.index < 1 || s.index > s.count) {
    throw input_error(fmt::format("--shard '{}': give i/n with 1 <= i <= n (shard i of n)", text));
  }
  return s;
}

// Shard i of n covers [(i-1) size / n, i size / n): the n ranges tile [0, size). In 128 bits:
// size times i can pass 2^63.
std::int64_t shard::begin(std::int64_t size) const {
  return static_cast<std::int64_t>(static_cast<__int128>(size) * (index - 1) / count);
}
std::int64_t shard::end(std::int64_t size) const { return static_cast<std::int64_t>(static_cast<__int128>(size) * index / count); }

}  // namespace pe::audit
