// A random rotate call for the fast-path tests: a RoPE spec (either layout, YaRN or none) and token positions, drawn with RapidCheck.
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace pe::test {

struct rope_call {
  std::string spec;
  std::int64_t dim, heads, tokens;
  std::vector<std::int64_t> pos;  // mostly below 10^5, some anywhere in int64
};

// dim up to 2 * max_pairs, 1-3 heads, 1-4 tokens, base 2 .. 10^6.
inline rope_call random_rope_call(std::int64_t max_pairs) {
  rope_call c;
  c.dim = 2 * *rc::gen::inRange<std::int64_t>(1, max_pairs + 1);
  c.heads = *rc::gen::inRange<std::int64_t>(1, 4);
  c.tokens = *rc::gen::inRange<std::int64_t>(1, 5);
  const bool scaled = *rc::gen::arbitrary<bool>();
  c.spec = fmt::format("rope(dim={}, base={}, layout={}{})", c.dim, *rc::gen::inRange(2, 1000001), *rc::gen::element<std::string>("neox", "gptj"),
                       scaled ? ", scaling=yarn(factor=4, original_max=2048)" : "");
  for (std::int64_t t = 0; t < c.tokens; ++t)
    c.pos.push_back(*rc::gen::oneOf(rc::gen::inRange<std::int64_t>(0, 100000), rc::gen::arbitrary<std::int64_t>()));
  return c;
}

}  // namespace pe::test
