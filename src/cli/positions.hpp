// Parsing of --pos lists: "0,1,2", half-open ranges "a:b", or a mix of both.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

namespace pecheck {

// Throws pe::input_error naming the bad item.
std::vector<std::int64_t> parse_positions(std::string_view text, std::string_view flag = "--pos");

// The most positions one --pos may produce (keeps a typo from allocating gigabytes).
inline constexpr std::int64_t max_positions = 10'000'000;

}  // namespace pecheck
