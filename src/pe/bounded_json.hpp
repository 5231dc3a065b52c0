// JSON parsed under the depth limit: a document nested deeper is refused as it is read, before it is built.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pe {

// Refuses (limit_error) a container that opens past limit::depth, and invalid JSON (input_error,
// "<where>: not valid JSON, at line L, column C: why"). Deep nesting would otherwise reach recursive code later (dump()
// for an error message, a reader's own recursion) and overflow the stack.
nlohmann::json parse_json_bounded(std::string_view text, std::string_view where);

// What one pass over JSON text found, building nothing (see scan_json).
struct json_scan {
  bool valid = true;
  // Where the text is not JSON: nlohmann's exception id (101-115 syntax, 406 a number past
  // binary64), the byte it stopped at and its message.
  int error_id = 0;
  std::size_t error_byte = 0;
  std::string error;
  // The first key given twice in one object, and the key the object was opened under ("" at the top).
  std::string repeated_key, repeated_under;
};

// One SAX pass over `text`: a container opening past limit::depth is refused (limit_error naming
// `where`), the first key repeated within an object is kept. Parsers check the text with it, then
// parse without a callback: nlohmann's callback parser scans the enclosing container at every
// object's end, quadratic in an object's or array's members (10^5 layer entries took 100 s).
json_scan scan_json(std::string_view text, std::string_view where);

// A JSON value for an error message: its dump() cut to about 60 characters, so one huge value
// cannot make a line of megabytes.
std::string json_excerpt(const nlohmann::json& v);

}  // namespace pe
