// Tests for src/pe/spec.hpp: parse -> print -> parse, the JSON twin, and every error message word for word.
#include "pe/spec.hpp"

#include <gtest/gtest.h>

#include "support/spec_errors.hpp"
#include <rapidcheck/gtest.h>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace {

using pe::parse_spec;

std::string error_of(const std::string& text) { return pe_test::spec_error_of(text); }

TEST(spec, defaults_are_filled_in_canonically) {
  EXPECT_EQ(parse_spec("sinusoidal(dim=4)").text(), "sinusoidal(dim=4, base=10000, layout=interleaved)");
  EXPECT_EQ(parse_spec(" sinusoidal ( layout = concat , base = 1e4 , dim = 8 ) ").text(),
            "sinusoidal(dim=8, base=10000, layout=concat)");
  EXPECT_EQ(parse_spec("learned(max_len=1024, dim=768)").text(),
            "learned(dim=768, max_len=1024, init_std=0.02, seed=0)");
  EXPECT_EQ(parse_spec("none()").text(), "none(dim=0)");
}

TEST(spec, reals_print_as_the_shortest_text_that_reads_back) {
  EXPECT_EQ(parse_spec("sinusoidal(dim=4, base=12345.678)").text(),
            "sinusoidal(dim=4, base=12345.678, layout=interleaved)");
  EXPECT_EQ(parse_spec("sinusoidal(dim=4, base=1e20)").real("base"), 1e20);
  EXPECT_EQ(parse_spec(parse_spec("sinusoidal(dim=4, base=1e20)").text()).real("base"), 1e20);
  // An integer written as a real is accepted when it is integral.
  EXPECT_EQ(parse_spec("sinusoidal(dim=4.0)").integer("dim"), 4);
  EXPECT_EQ(parse_spec("learned(dim=2, max_len=2, seed=9223372036854775807)").integer("seed"), 9223372036854775807);
}

TEST(spec, json_twin_has_the_same_fields_in_the_same_order) {
  const pe::spec s = parse_spec("sinusoidal(dim=4, layout=fairseq)");
  EXPECT_EQ(s.json().dump(), R"({"scheme":"sinusoidal","dim":4,"base":10000.0,"layout":"fairseq"})");
  EXPECT_EQ(pe::parse_spec_json(nlohmann::json::parse(s.json().dump())), s);
  EXPECT_EQ(pe::parse_spec_any(R"({"dim": 4, "scheme": "sinusoidal"})").text(),
            "sinusoidal(dim=4, base=10000, layout=interleaved)");
}

// Every scheme of the registry survives text -> spec -> text and text -> JSON -> spec.
RC_GTEST_PROP(spec, print_parse_round_trips, ()) {
  const int dim = 2 * *rc::gen::inRange(2, 257);
  const double base = *rc::gen::map(rc::gen::inRange<std::int64_t>(1, std::int64_t{1} << 52),
                                    [](std::int64_t k) { return 1.0 + static_cast<double>(k) * 0x1p-40; });
  const std::string layout = *rc::gen::element<std::string>("interleaved", "concat", "fairseq");
  const std::int64_t seed = *rc::gen::inRange<std::int64_t>(0, std::numeric_limits<std::int64_t>::max());
  const double init_std = *rc::gen::map(rc::gen::inRange(1, 1000000), [](int k) { return k * 1e-5; });
  const std::string texts[] = {
      fmt::format("sinusoidal(layout={}, base={}, dim={})", layout, base, dim),
      fmt::format("learned(dim={}, max_len={}, init_std={}, seed={})", dim, dim + 1, init_std, seed),
      fmt::format("normalized(length={}, dim={})", dim, dim),
      fmt::format("binary(dim={})", dim),
  };
  for (const auto& text : texts) {
    const pe::spec s = parse_spec(text);
    RC_ASSERT(parse_spec(s.text()).text() == s.text());
    RC_ASSERT(pe::parse_spec_json(nlohmann::json::parse(s.json().dump())).text() == s.text());
  }
  RC_ASSERT(parse_spec(texts[0]).real("base") == base);
}

struct bad_spec {
  const char* text;
  const char* message;
};

const bad_spec bad_specs[] = {
    // validation: the field, the value and the reason
    {"sinusoidal(dim=5)", "sinusoidal: dim=5 is odd; sin/cos pairs need an even dim"},
    {"sinusoidal(dim=0)", "sinusoidal: dim=0 must be >= 2"},
    {"sinusoidal(dim=4.5)", "sinusoidal: dim=4.5 is not an integer"},
    {"sinusoidal(dim=4, base=1)", "sinusoidal: base=1 must be > 1"},
    {"sinusoidal(dim=4, base=-3)", "sinusoidal: base=-3 must be > 1"},
    {"sinusoidal(dim=4, base=nan)", "sinusoidal: base=nan is not finite"},
    {"sinusoidal(dim=4, base=-inf)", "sinusoidal: base=-inf is not finite"},
    {"sinusoidal(dim=4, base=1e999)", "sinusoidal: base=1e999 is not finite"},
    {"sinusoidal(dim=4, base=ten)", "sinusoidal: base=ten is not a number"},
    {"sinusoidal(dim=4, layout=neox)", "sinusoidal: layout=neox is not one of interleaved, concat, fairseq"},
    {"sinusoidal(dim=4, layout=interleave)",
     "sinusoidal: layout=interleave is not one of interleaved, concat, fairseq (did you mean 'interleaved'?)"},
    {"sinusoidal(dim=4, layout=[1, 2])", "sinusoidal: layout=[1, 2] is not one of interleaved, concat, fairseq"},
    {"sinusoidal(dim=2, layout=fairseq)",
     "sinusoidal: dim=2 with layout=fairseq divides the exponent by dim/2-1 = 0; use dim >= 4"},
    {"sinusoidal(base=100)", "sinusoidal: dim is required (components per position vector (even: sin/cos pairs))"},
    {"normalized(dim=4)", "normalized: length is required (sequence length the position is divided by)"},
    {"normalized(dim=4, length=-3)", "normalized: length=-3 must be >= 1"},
    {"integer(dim=0)", "integer: dim=0 must be >= 1"},
    {"learned(dim=4, max_len=0)", "learned: max_len=0 must be >= 1"},
    {"learned(dim=4, max_len=8, init_std=0)", "learned: init_std=0 must be > 0"},
    {"learned(dim=4, max_len=8, seed=-1)", "learned: seed=-1 must be >= 0"},
    {"learned(dim=4, max_len=8, seed=99999999999999999999)",
     "learned: seed=99999999999999999999 does not fit in 64 bits"},
    {"learned(dim=4, max_len=9223372036854775807)", "learned: max_len=9223372036854775807 must be <= 1099511627776"},
    {"integer(dim=4611686018427387904)", "integer: dim=4611686018427387904 must be <= 1048576"},
    {"sinusoidal(dim=4294967300)", "sinusoidal: dim=4294967300 must be <= 1048576"},
    {"sinusoidal(dim=4.0000000000000001)", "sinusoidal: dim=4.0000000000000001 is not an integer"},
    {"sinusoidal(dim=3.9999999999999999)", "sinusoidal: dim=3.9999999999999999 is not an integer"},
    {"sinusoidal(dim=1e3.5)", "bad spec 'sinusoidal(dim=1e3.5)': expected ',' or ')' at column 19"},
    {"sinusoidal(dim=4, base=1e-400)", "sinusoidal: base=1e-400 must be > 1"},
    // unknown names, with the nearest suggestion when there is one
    {"sinusoidal(dim=4, bsae=100)", "sinusoidal: unknown key 'bsae' (did you mean 'base'?)"},
    {"none(dim=4, x=1)", "none: unknown key 'x' (known: dim)"},
    {"sinusoidl(dim=4)", "unknown scheme 'sinusoidl' (did you mean 'sinusoidal'?)"},
    {"foo(dim=4)", "unknown scheme 'foo'"},
    {"sinusoidal(dim=4, dim=6)", "sinusoidal: key 'dim' given twice"},
    // malformed text and nesting: the column of the problem
    {"", "empty spec"},
    {"sinusoidal(dim=4", "bad spec 'sinusoidal(dim=4': expected ',' or ')' at column 17"},
    {"sinusoidal dim=4)", "bad spec 'sinusoidal dim=4)': expected '(' after 'sinusoidal' at column 12"},
    {"sinusoidal(dim=)", "bad spec 'sinusoidal(dim=)': expected a value at column 16"},
    {"sinusoidal(dim=4))", "bad spec 'sinusoidal(dim=4))': expected end of spec at column 18"},
    {"sinusoidal(dim 4)", "bad spec 'sinusoidal(dim 4)': expected '=' after 'dim' at column 16"},
    {"sinusoidal(=4)", "bad spec 'sinusoidal(=4)': expected a parameter name at column 12"},
    {"sinusoidal(dim=[4, 6)", "bad spec 'sinusoidal(dim=[4, 6)': expected ',' or ']' at column 21"},
    {"sinusoidal(dim=4, base=pow(10, 4))", "bad spec 'sinusoidal(dim=4, base=pow(10, 4))': expected a parameter name at column 28"},
    {"sinusoidal(dim=4, base=pow(x=10))", "sinusoidal: base=pow(...) is not a number"},
    // the JSON twin
    {R"({"dim": 4})", R"(spec: a JSON spec needs "scheme": "<name>")"},
    {R"({"scheme": "sinusoidal", "dim": "4"})", R"(sinusoidal: dim="4" is not an integer)"},
    {R"({"scheme": "sinusoidal", "dim": 5})", "sinusoidal: dim=5 is odd; sin/cos pairs need an even dim"},
    {R"({"scheme": "sinusoidal", "dim": null})", "sinusoidal: null is not a parameter value"},
    {R"({"scheme": "sinusoidal", "dim": 4)", R"(bad spec: '{"scheme": "sinusoidal", "dim": 4' is not valid JSON)"},
    {R"({"scheme": "sinusoidal", "dim": 4, "dim": 8})", "bad spec: JSON key 'dim' is given twice"},
};

TEST(spec, integers_written_as_decimals) {
  EXPECT_EQ(parse_spec("sinusoidal(dim=1.28e2)").integer("dim"), 128);
  EXPECT_EQ(parse_spec("sinusoidal(dim=+8)").integer("dim"), 8);
  EXPECT_EQ(parse_spec("sinusoidal(dim=0008.000)").integer("dim"), 8);
  EXPECT_EQ(parse_spec("learned(dim=2, max_len=2, seed=-0)").integer("seed"), 0);
}

// Hostile nesting is refused before it can exhaust the stack.
TEST(spec, nesting_is_bounded) {
  const std::string deep_text = "sinusoidal(dim=" + std::string(25000, '[');
  EXPECT_EQ(error_of(deep_text),
            "bad spec '" + deep_text.substr(0, 100) + "...': nesting deeper than the limit depth=32 (raise it with --limit depth=N) at column 48");
  std::string deep_json = R"({"scheme": "sinusoidal", "dim": )" + std::string(25000, '[') + std::string(25000, ']') + "}";
  // The parser refuses the 33rd level as it reads it, before the document is built.
  EXPECT_EQ(error_of(deep_json), "spec: JSON nesting depth: 33, over the limit depth=32 (raise it with --limit depth=N)");
}

TEST(spec, errors_name_the_field_the_value_and_the_reason) {
  for (const auto& b : bad_specs) EXPECT_EQ(error_of(b.text), b.message) << "spec: " << b.text;
}

// Nested specs, lists and booleans, through two schemes registered for this test only (the
// built-in schemes of today take none; RoPE's scalings will).
class nested_spec : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (pe::find_scheme("linear_t")) return;
    pe::register_scheme({"linear_t", "test_scaling", "a test scaling", {pe::real_param("factor", "test factor", 1.0,
        [](double f) { return f > 0 ? std::string() : std::string("must be > 0"); })}, {"encode"}, {}});
    pe::param_info scaling{"scaling", pe::param_kind::scheme, "a nested test scaling"};
    scaling.family = "test_scaling";
    pe::param_info freqs{"freqs", pe::param_kind::real_list, "explicit frequencies"};
    freqs.optional = true;
    pe::param_info flag{"flag", pe::param_kind::boolean, "a switch"};
    flag.default_value = false;
    pe::register_scheme({"nested_t", "encoding", "a test scheme",
                         {pe::integer_param("dim", "test dim", std::nullopt, 1), scaling, freqs, flag}, {"encode"}, {}});
  }
};

TEST_F(nested_spec, prints_nested_specs_lists_and_booleans) {
  EXPECT_EQ(parse_spec("nested_t(dim=4, scaling=linear_t(factor=8))").text(),
            "nested_t(dim=4, scaling=linear_t(factor=8), flag=false)");
  EXPECT_EQ(parse_spec("nested_t(flag=true, freqs=[1, 0.5, 2.5e-1], scaling=linear_t, dim=4)").text(),
            "nested_t(dim=4, scaling=linear_t(factor=1), freqs=[1, 0.5, 0.25], flag=true)");
  EXPECT_EQ(parse_spec("nested_t(dim=4, scaling=linear_t(), freqs=[])").text(),
            "nested_t(dim=4, scaling=linear_t(factor=1), freqs=[], flag=false)");
  const pe::spec s = parse_spec("nested_t(dim=4, scaling=linear_t(factor=8), freqs=[0.125])");
  EXPECT_EQ(s.nested("scaling").real("factor"), 8.0);
  EXPECT_EQ(s.reals("freqs"), (pe::real_list{0.125}));
  EXPECT_FALSE(s.boolean("flag"));
}

TEST_F(nested_spec, json_twin_nests_objects) {
  const pe::spec s = parse_spec("nested_t(dim=4, scaling=linear_t(factor=8), freqs=[1, 0.5], flag=true)");
  EXPECT_EQ(s.json().dump(),
            R"j({"scheme":"nested_t","dim":4,"scaling":{"scheme":"linear_t","factor":8.0},"freqs":[1.0,0.5],"flag":true})j");
  EXPECT_EQ(pe::parse_spec_json(nlohmann::json::parse(s.json().dump())), s);
}

TEST_F(nested_spec, errors_inside_nesting_name_the_path) {
  const bad_spec nested_errors[] = {
      {"nested_t(dim=4, scaling=linear_t(factor=0))", "nested_t: scaling: linear_t: factor=0 must be > 0"},
      {"nested_t(dim=4, scaling=linear_t(fctor=2))",
       "nested_t: scaling: linear_t: unknown key 'fctor' (did you mean 'factor'?)"},
      {"nested_t(dim=4, scaling=sinusoidal(dim=4))", "nested_t: scaling: unknown test_scaling scheme 'sinusoidal'"},
      {"nested_t(dim=4, scaling=linar_t(factor=2))",
       "nested_t: scaling: unknown test_scaling scheme 'linar_t' (did you mean 'linear_t'?)"},
      {"nested_t(dim=4, scaling=4)", "nested_t: scaling=4 is not a test_scaling scheme"},
      {"nested_t(dim=4, scaling=linear_t, freqs=4)", "nested_t: freqs=4 is not a list like [1, 2.5]"},
      {"nested_t(dim=4, scaling=linear_t, freqs=[1, x])", "nested_t: freqs=[1, x] has 'x', which is not a number"},
      {"nested_t(dim=4, scaling=linear_t, freqs=[1, nan])", "nested_t: freqs=[1, nan] has nan, which is not finite"},
      {"nested_t(dim=4, scaling=linear_t, flag=yes)", "nested_t: flag=yes is not true or false"},
      {"nested_t(dim=4)", "nested_t: scaling is required (a nested test scaling)"},
      {"linear_t(factor=2)", "unknown scheme 'linear_t'"},
      {"nested_t(dim=4, scaling=linear_t(factor=2)", "bad spec 'nested_t(dim=4, scaling=linear_t(factor=2)': expected ',' or ')' at column 43"},
  };
  for (const auto& b : nested_errors) EXPECT_EQ(error_of(b.text), b.message) << "spec: " << b.text;
}

TEST(spec, accessors_read_typed_values) {
  const pe::spec s = parse_spec("learned(dim=8, max_len=16, init_std=0.5, seed=3)");
  EXPECT_EQ(s.scheme(), "learned");
  EXPECT_EQ(s.integer("dim"), 8);
  EXPECT_EQ(s.real("init_std"), 0.5);
  EXPECT_TRUE(s.has("seed"));
  EXPECT_FALSE(s.has("base"));
  EXPECT_EQ(parse_spec("sinusoidal(dim=4, layout=concat)").choice("layout"), "concat");
}

}  // namespace
