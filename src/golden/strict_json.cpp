// The strict JSON reading of golden files and MANIFEST.json (see strict_json.hpp).
#include "golden/strict_json.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "pe/bounded_json.hpp"
#include "pe/error.hpp"

namespace pe::golden {

json parse_strict_json(const std::string& text, const std::string& where) {
  const auto fail = [&](const std::string& what) { return input_error(fmt::format("{}: {}", where, what)); };
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) throw fail("starts with a UTF-8 byte order mark (byte 0)");
  // No JSON text holds a raw NUL (strings write it \u0000), and nlohmann's lexer takes one for the end.
  if (const auto nul = text.find('\0'); nul != std::string::npos) throw fail(fmt::format("has a NUL byte at byte {}", nul));
  const json_scan scan = scan_json(text, where);
  // 101-115 are nlohmann's syntax errors, with the byte they stopped at; others (a number too large
  // for binary64, "1e999", is out_of_range 406) say what they are.
  if (!scan.valid && scan.error_id >= 101 && scan.error_id <= 115) throw fail(fmt::format("is not valid JSON (byte {})", scan.error_byte));
  if (!scan.valid) throw fail(fmt::format("is not valid JSON: {}", scan.error));
  if (!scan.repeated_key.empty()) {
    throw fail(fmt::format("key '{}' appears twice in one object{}", excerpt(scan.repeated_key),
                           scan.repeated_under.empty() ? "" : fmt::format(" (in '{}')", excerpt(scan.repeated_under))));
  }
  return json::parse(text);
}

std::int64_t bounded_integer(const json& object, const char* key, std::int64_t lo, std::int64_t hi, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end()) throw input_error(fmt::format("{}: has no {}", where, key));
  // 256.0 is a float, not an integer; nlohmann reads -1 as number_integer and 4294967552 as number_unsigned.
  bool in_range = false;
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    in_range = hi >= 0 && v <= static_cast<std::uint64_t>(hi) && static_cast<std::int64_t>(v) >= lo;
  } else if (it->is_number_integer()) {
    const auto v = it->get<std::int64_t>();
    in_range = v >= lo && v <= hi;
  }
  if (!in_range) throw input_error(fmt::format("{}: {} {} is not an integer from {} to {}", where, key, excerpt(it->dump()), lo, hi));
  return it->get<std::int64_t>();
}

void require_known_keys(const json& object, std::initializer_list<std::string_view> known, const std::string& where) {
  for (const auto& [key, value] : object.items())
    if (std::find(known.begin(), known.end(), key) == known.end()) throw input_error(fmt::format("{}: unknown key '{}'", where, excerpt(key)));
}

}  // namespace pe::golden
