// Golden and manifest JSON read strictly: the bytes, the keys and the integer fields must say exactly what the parse says.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pe::golden {

using json = nlohmann::ordered_json;

// The text parsed as JSON; input_error naming `where` (and the byte) when it is not JSON, starts
// with a UTF-8 byte order mark, holds a NUL byte, or has a key twice in one object. nlohmann skips
// the mark, ends the text at a NUL and keeps the last of two keys: each would let a file carry
// bytes (or a second value) that verify's parse never sees.
json parse_strict_json(const std::string& text, const std::string& where);

// object[key] when it is a JSON integer from lo to hi; otherwise input_error "WHERE: KEY VALUE is
// not an integer from LO to HI" (nlohmann's get<unsigned> would cut 4294967552 to 256).
std::int64_t bounded_integer(const json& object, const char* key, std::int64_t lo, std::int64_t hi, const std::string& where);

// input_error "WHERE: unknown key 'K'" for a key of `object` not in `known`: regen writes none, and
// an ignored key would be content that no check reads.
void require_known_keys(const json& object, std::initializer_list<std::string_view> known, const std::string& where);

}  // namespace pe::golden
