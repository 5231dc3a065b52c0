// The strict JSON reading of golden files and MANIFEST.json (see strict_json.hpp).
#include "golden/strict_json.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "pe/bounded_json.hpp"
#include "pe/error.hpp"

namespace pe::golden {

json parse_strict_json(const std::string& text, const std::string& where) {
  const auto fail = [&](const std::string& what) { return input_error(fmt::format("{}: {}", where, what)); };
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) throw fail("starts with a UTF-8 byte order mark (byte 0)");
  // No JSON text holds a raw NUL (strings write it \u0000), and nlohmann's lexer takes one for the end.
  if (const auto nul = text.find('\0'); nul != std::string::npos) throw fail(fmt::format("has a NUL byte at byte {}", nul));
  // The keys seen in each open object, innermost last (a key always belongs to the innermost one),
  // with the key that opened it, to say where a repeated key is.
  struct open_object {
    std::set<std::string> keys;
    std::string under;
  };
  std::vector<open_object> open;
  std::string last_key;
  const json::parser_callback_t refuse_repeated_keys = [&](int depth, json::parse_event_t event, json& parsed) {
    check_json_depth(depth, event, where);
    if (event == json::parse_event_t::object_start) open.push_back({{}, last_key});
    if (event == json::parse_event_t::object_end) open.pop_back();
    if (event == json::parse_event_t::key) {
      last_key = parsed.get<std::string>();
      if (!open.back().keys.insert(last_key).second) {
        throw fail(fmt::format("key '{}' appears twice in one object{}", excerpt(last_key),
                               open.back().under.empty() ? "" : fmt::format(" (in '{}')", excerpt(open.back().under))));
      }
    }
    return true;
  };
  try {
    return json::parse(text, refuse_repeated_keys);
  } catch (const json::parse_error& e) {
    throw fail(fmt::format("is not valid JSON (byte {})", e.byte));
  } catch (const json::exception& e) {
    // Not a parse_error: a number too large for binary64 ("1e999" throws out_of_range 406).
    throw fail(fmt::format("is not valid JSON: {}", e.what()));
  }
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
