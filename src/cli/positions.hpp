// Parsing of command-line numbers: --positions lists ("0,1,2", half-open ranges "a:b", or a mix) and finite reals.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pecheck {

// Throws pe::input_error naming the bad item, pe::limit_error past --limit list before allocating.
std::vector<std::int64_t> parse_positions(std::string_view text, std::string_view flag = "--positions");
// How many positions parse_positions(text) gives (saturating), from the text alone.
std::uint64_t count_positions(std::string_view text, std::string_view flag = "--positions");

// A decimal or C99 hex float read to the nearest binary64, or nothing when the text is not
// exactly one finite number.
std::optional<double> parse_finite_double(const std::string& text);

}  // namespace pecheck
