// JSON parsed under the depth limit (see bounded_json.hpp).
#include "pe/bounded_json.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe {

void check_json_depth(int depth, nlohmann::json::parse_event_t event, std::string_view where) {
  using event_t = nlohmann::json::parse_event_t;
  // At a container's start the callback's depth counts the containers around it.
  if (event == event_t::object_start || event == event_t::array_start) {
    check_limit(limit::depth, static_cast<std::uint64_t>(depth) + 1, fmt::format("{}: JSON nesting depth", where));
  }
}

nlohmann::json parse_json_bounded(std::string_view text, std::string_view where) {
  const nlohmann::json::parser_callback_t watch = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json&) {
    check_json_depth(depth, event, where);
    return true;
  };
  try {
    return nlohmann::json::parse(text, watch);
  } catch (const nlohmann::json::exception& e) {
    throw input_error(fmt::format("{}: invalid JSON: {}", where, e.what()));
  }
}

std::string json_excerpt(const nlohmann::json& v) {
  // Containers are shown by their size: dumping one would walk all of it.
  if (v.is_array()) return fmt::format("an array of {}", v.size());
  if (v.is_object()) return fmt::format("an object of {} keys", v.size());
  std::string text = v.dump();
  if (text.size() > 60) text = text.substr(0, 50) + "...";
  return text;
}

}  // namespace pe
