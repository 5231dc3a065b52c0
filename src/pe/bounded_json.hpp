// JSON parsed under the depth limit: a document nested deeper is refused as it is read, before it is built.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pe {

// Refuses (limit_error) a container that opens past limit::depth, and invalid JSON (input_error,
// "<where>: invalid JSON: ..."). Deep nesting would otherwise reach recursive code later (dump()
// for an error message, a reader's own recursion) and overflow the stack.
nlohmann::json parse_json_bounded(std::string_view text, std::string_view where);

// Throws limit_error when a container at callback depth `depth` opens past limit::depth: for
// parsers with a callback of their own.
void check_json_depth(int depth, nlohmann::json::parse_event_t event, std::string_view where);

// A JSON value for an error message: its dump() cut to about 60 characters, so one huge value
// cannot make a line of megabytes.
std::string json_excerpt(const nlohmann::json& v);

}  // namespace pe
