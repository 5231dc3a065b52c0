// The spec's raw tree (what was written, before the registry gives it types) and the steps from
// text or JSON to a resolved spec: spec.cpp's internals, split by job (spec_parse.cpp reads,
// spec_resolve.cpp resolves against the registry).
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pe/spec.hpp"

namespace pe::detail {

struct raw_spec;
struct raw_value {
  enum kind_t { number, word, list, nested } kind;
  std::string text;                    // number or word; the source text otherwise
  std::vector<raw_value> items;        // list
  std::shared_ptr<raw_spec> spec;      // nested
  std::string display;                 // as shown in messages when it differs (a quoted JSON string)
};
struct raw_spec {
  std::string name;
  std::vector<std::pair<std::string, raw_value>> args;
};

// The raw tree of spec text ("rope(dim=128, scaling=yarn(factor=4))"); spec_error naming the column.
raw_spec parse_raw_text(std::string_view text);
// The raw tree of a JSON spec ({"scheme": "rope", "dim": 128}); spec_error naming `where`.
raw_spec raw_spec_from_json(const nlohmann::json& j, const std::string& where, int depth = 0);
// The raw tree resolved against the registry's schemes of `family` ("encoding", or a nested
// parameter's family), each value read and checked; context prefixes its messages.
spec resolve(const raw_spec& raw, const std::string& family, const std::string& context);

}  // namespace pe::detail
