// Fuzz target: an audit part's --json, as audit merge reads it. Any bytes are a profile whose claims its setup re-derives, or one clean error.
#include "fuzz_support.hpp"

#include "audit/profile.hpp"
#include "audit/profile_check.hpp"
#include "pe/bounded_json.hpp"
#include "pe/limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  // Position sets of a few thousand reach every path; the default list limit would let one input
  // ask for 10^7 positions.
  static const bool limited = (pe::set_limit("list=4096"), true);
  (void)limited;
  expect_clean([&] {
    const auto p = pe::audit::profile_from_json(pe::parse_json_bounded(text_of(data, size), "part.json"), "part.json");
    pe::audit::check_profile_claims(p, "part.json");
    // An accepted part writes JSON that reads back to itself and is accepted again.
    const std::string text = pe::audit::to_json(p).dump(1);
    const auto again = pe::audit::profile_from_json(nlohmann::json::parse(text), "again");
    if (pe::audit::to_json(again).dump(1) != text) broken("part round trip", text);
    pe::audit::check_profile_claims(again, "again");
    // A part merged with itself overlaps wherever it was assigned positions.
    if (!p.assigned.empty()) {
      auto twice = p;
      try {
        twice.merge(p);
      } catch (const pe::input_error&) {
        return;
      }
      broken("a part merged with itself", text);
    }
  });
  return 0;
}
