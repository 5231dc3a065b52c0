// Tests for src/pe/registry.hpp: every scheme is listed, documented, and its defaults pass its own checks.
#include "pe/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "pe/spec.hpp"

namespace {

TEST(registry, lists_every_scheme_of_the_foundation) {
  for (const char* name : {"integer", "normalized", "binary", "sinusoidal", "learned", "none"}) {
    const pe::scheme_info* s = pe::find_scheme(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->family, "encoding");
    EXPECT_NE(std::find(s->ops.begin(), s->ops.end(), "encode"), s->ops.end()) << name;
  }
  EXPECT_EQ(pe::find_scheme("rope_typo"), nullptr);
}

TEST(registry, names_are_unique_and_everything_is_documented) {
  std::set<std::string> names;
  for (const pe::scheme_info& s : pe::registry()) {
    EXPECT_TRUE(names.insert(s.name).second) << "duplicate scheme " << s.name;
    EXPECT_FALSE(s.doc.empty()) << s.name;
    if (s.family == "encoding") {
      EXPECT_FALSE(s.ops.empty()) << s.name;  // scalings are parameters, not ops
    }
    std::set<std::string> keys;
    for (const auto& p : s.params) {
      EXPECT_TRUE(keys.insert(p.name).second) << s.name << "." << p.name;
      EXPECT_FALSE(p.doc.empty()) << s.name << "." << p.name;
      if (p.default_value && p.check) {
        EXPECT_EQ(p.check(*p.default_value), "") << s.name << "." << p.name;
      }
      if (p.kind == pe::param_kind::choice) {
        const auto& def = std::get<std::string>(*p.default_value);
        EXPECT_NE(std::find(p.choices.begin(), p.choices.end(), def), p.choices.end()) << s.name << "." << p.name;
      }
    }
  }
}

// One order on every build: by kind, then each registration's order (schemes/X.cpp). A unity build
// runs the registrations in another order than a build of each file alone, and both run this test.
TEST(registry, lists_the_schemes_in_the_same_order_on_every_build) {
  std::vector<std::string> names;
  for (const pe::scheme_info& s : pe::registry()) names.push_back(s.name);
  const std::vector<std::string> expected = {
      "integer", "normalized", "binary", "learned", "sinusoidal",  // absolute
      "none",                                                      // plain
      "rope", "rope_nd", "mrope", "xpos",                          // rotary
      "llama4_temperature",                                        // input side
      "alibi", "kerple", "t5",                                     // bias
      "deberta", "shaw", "txl",                                    // score terms
      "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"};   // RoPE's scalings
  EXPECT_EQ(names, expected);
}

TEST(registry, value_text_is_canonical) {
  EXPECT_EQ(pe::value_text(pe::value{std::int64_t{128}}), "128");
  EXPECT_EQ(pe::value_text(pe::value{0.1}), "0.1");
  EXPECT_EQ(pe::value_text(pe::value{10000.0}), "10000");
  EXPECT_EQ(pe::value_text(pe::value{true}), "true");
  EXPECT_EQ(pe::value_text(pe::value{pe::real_list{1.0, 0.25}}), "[1, 0.25]");
  EXPECT_EQ(pe::value_text(pe::value{std::string("neox")}), "neox");
}

}  // namespace
