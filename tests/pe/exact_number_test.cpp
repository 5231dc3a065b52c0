// Tests for src/pe/exact_number.hpp: the expression grammar, correct rounding (binary64 and MPFR), errors, and specs that keep their expressions.
#include "pe/exact_number.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>
#include <string>

#include "pe/error.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/schemes/sinusoidal.hpp"
#include "pe/spec.hpp"
#include "support/spec_errors.hpp"

namespace {

using pe::exact_number;
using pe::mp_real;
using pe::parse_spec;

double nearest(const std::string& text) { return exact_number::parse(text)->nearest_double(); }
std::string canonical(const std::string& text) { return exact_number::parse(text)->text(); }
std::string error_of(const std::string& text) { return pe_test::spec_error_of(text); }

// A decimal string read at `bits` bits, rounded to nearest (MPFR's own reading, not the code under test).
mp_real decimal_at(const char* digits, unsigned bits) {
  mp_real x;
  mpfr_set_prec(x.backend().data(), bits);
  mpfr_set_str(x.backend().data(), digits, 10, MPFR_RNDN);
  return x;
}

// pi/4 and 3/(2 pi) at 256 bits: mpmath with mp.prec = 256 (mp.pi/4, mpf(3)/(2*mp.pi)), printed to
// 100 digits, enough to read back the same 256-bit values.
constexpr const char* pi_over_4_at_256 =
    "0.7853981633974483096156608458198757210492923498437764552437361480769541015715495073634062579553374117";
constexpr const char* three_over_two_pi_at_256 =
    "0.4774648292756860073066512901175430861033789372213693462430020321766903929026814486628740474782544941";

TEST(exact_number, canonical_text_drops_spaces_and_spare_parentheses) {
  EXPECT_EQ(canonical(" ( 2 * pi ) "), "2*pi");
  EXPECT_EQ(canonical("3 / (2*pi)"), "3/(2*pi)");
  EXPECT_EQ(canonical("-pi/2"), "-pi/2");
  EXPECT_EQ(canonical("-(pi+1)"), "-(pi+1)");
  EXPECT_EQ(canonical("1-(2-pi)"), "1-(2-pi)");
  EXPECT_EQ(canonical("(1-2)-pi"), "1-2-pi");
  EXPECT_EQ(canonical("2*-pi"), "2*(-pi)");
  EXPECT_EQ(canonical("+pi"), "pi");
  EXPECT_EQ(canonical("1/(2/3)"), "1/(2/3)");
  EXPECT_EQ(canonical("1E4*pi"), "1E4*pi");  // decimals as written
  EXPECT_EQ(canonical(".5*pi"), ".5*pi");
  for (const char* text : {"2*pi", "3/(2*pi)", "-pi/2", "-(pi+1)", "1-(2-pi)", "2*(-pi)", "1/(2/3)", "(1+2)*(3-pi)/-(4)"}) {
    EXPECT_EQ(canonical(canonical(text)), canonical(text)) << text;
  }
}

TEST(exact_number, plain_numbers_are_lone_decimals) {
  EXPECT_TRUE(exact_number::parse("(0.5)")->is_plain_number());
  EXPECT_TRUE(exact_number::parse("-(-2e3)")->is_plain_number());
  EXPECT_FALSE(exact_number::parse("1/2")->is_plain_number());
  EXPECT_FALSE(exact_number::parse("pi")->is_plain_number());
}

// Expected doubles: mpmath at 400 bits, float() (pi cases), and Python's Fraction (rationals, whose
// float() is correctly rounded, subnormals included).
TEST(exact_number, binary64_is_the_correct_rounding) {
  EXPECT_EQ(nearest("1/3"), 0x1.5555555555555p-2);
  EXPECT_EQ(nearest("pi/4"), 0x1.921fb54442d18p-1);
  EXPECT_EQ(nearest("3/(2*pi)"), 0x1.e8ec8a4aeacc4p-2);
  EXPECT_EQ(nearest("-pi/2"), -0x1.921fb54442d18p+0);
  EXPECT_EQ(nearest("2*pi"), 0x1.921fb54442d18p+2);
  EXPECT_EQ(nearest("1e4*pi"), 0x1.eadfb4c5d390cp+14);
  EXPECT_EQ(nearest("1/10"), 0.1);
  EXPECT_EQ(nearest("1e-320/3"), 0x0.00000000002a3p-1022);  // subnormal: rounded once, at its own ulp
  EXPECT_EQ(nearest("1e400/1e100"), 1e300);
  EXPECT_EQ(nearest("1e400"), HUGE_VAL);  // beyond binary64: infinite, as a spec then says "is not finite"
  // Leading zeros are decimal, not octal (GMP reads "010" as 8, and "09" not at all): found by the
  // spec fuzz target as "063829787234" throwing out of the parser.
  EXPECT_EQ(nearest("0.010*1"), 0.01);
  EXPECT_EQ(nearest("0.09*2"), 0.18);
  EXPECT_EQ(nearest("063829787234*1"), 63829787234.0);
  EXPECT_EQ(nearest("00*1"), 0.0);
}

// Near ties: 1 + 2^-53 is the midpoint of 1 and 1 + 2^-52. 256 bits then one rounding gives 1 for
// 1 + 2^-53 + 10^-300 (the 10^-300 is lost at 256 bits, leaving the tie): Ziv's loop widens until
// it sees it. (1 + 2^-53)/3*3 is the tie itself, reached through non-dyadic steps.
TEST(exact_number, near_ties_are_decided) {
  EXPECT_EQ(nearest("1+1/9007199254740992"), 1.0);                          // tie, to even
  EXPECT_EQ(nearest("1+3/9007199254740992"), 0x1.0000000000002p+0);         // tie, to even (up)
  EXPECT_EQ(nearest("1+1/9007199254740992+1e-300"), 0x1.0000000000001p+0);  // just above the tie
  EXPECT_EQ(nearest("1+1/9007199254740992-1e-300"), 1.0);                   // just below it
  EXPECT_EQ(nearest("(1+1/9007199254740992)/3*3"), 1.0);
  // The 256-bit rounding of the same value is the tie, and would round to 1.
  const mp_real at_256 = exact_number::parse("1+1/9007199254740992+1e-300")->rounded(256);
  EXPECT_EQ(mpfr_get_d(at_256.backend().data(), MPFR_RNDN), 1.0);
}

// Random a*pi/b + c/d against MPFR's own evaluation at 2000 bits rounded once: the same double
// unless the value lies within 2^-1990 of a binary64 midpoint (never, for these); each expression's
// text reads back to itself, and a rope spec holding it round-trips through text and JSON.
TEST(exact_number, random_expressions_round_like_a_2000_bit_evaluation) {
  std::mt19937_64 rng(20261203);
  std::uniform_int_distribution<int> small(1, 1000000);
  for (int n = 0; n < 300; ++n) {
    const int a = small(rng), b = small(rng), c = small(rng), d = small(rng);
    const std::string text = fmt::format("{}*pi/{}+{}/{}", a, b, c, d);
    mpfr_t x, t;
    mpfr_inits2(2000, x, t, static_cast<mpfr_ptr>(nullptr));
    mpfr_const_pi(x, MPFR_RNDN);
    mpfr_mul_si(x, x, a, MPFR_RNDN);
    mpfr_div_si(x, x, b, MPFR_RNDN);
    mpfr_set_si(t, c, MPFR_RNDN);
    mpfr_div_si(t, t, d, MPFR_RNDN);
    mpfr_add(x, x, t, MPFR_RNDN);
    const double want = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clears(x, t, static_cast<mpfr_ptr>(nullptr));
    const auto e = exact_number::parse(text);
    ASSERT_EQ(e->nearest_double(), want) << text;
    ASSERT_EQ(e->text(), text);
    const pe::spec s = parse_spec(fmt::format("rope(dim=2, freqs=[{}])", text));
    ASSERT_EQ(s.reals("freqs")[0], want) << text;
    ASSERT_EQ(parse_spec(s.text()), s);
    ASSERT_EQ(pe::parse_spec_json(nlohmann::json::parse(s.json().dump())), s);
  }
}

TEST(exact_number, mpfr_values_are_correctly_rounded_at_the_precision_asked) {
  const mp_real pi4 = exact_number::parse("pi/4")->rounded(256);
  EXPECT_EQ(pe::bits_of(pi4), 256u);
  EXPECT_TRUE(mpfr_equal_p(pi4.backend().data(), decimal_at(pi_over_4_at_256, 256).backend().data()));
  const mp_real q = exact_number::parse("3/(2*pi)")->rounded(256);
  EXPECT_TRUE(mpfr_equal_p(q.backend().data(), decimal_at(three_over_two_pi_at_256, 256).backend().data()));
  // 1/10 exactly, not the double 0.1.
  const mp_real tenth = exact_number::parse("1/10")->rounded(256);
  EXPECT_TRUE(mpfr_equal_p(tenth.backend().data(), decimal_at("0.1", 256).backend().data()));
  EXPECT_NE(tenth, mp_real(0.1));
  // value() follows the current precision.
  pe::mp_precision scope(512);
  EXPECT_EQ(pe::bits_of(exact_number::parse("pi/4")->value()), pe::bits_of(mp_real()));
}

TEST(exact_number, errors_name_the_place) {
  const auto error = [](const char* text) {
    try {
      exact_number::parse(text)->nearest_double();
    } catch (const pe::spec_error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("pi/"), "'pi/' ends after '/'");
  EXPECT_EQ(error(""), "'' is empty");
  EXPECT_EQ(error("2*tau"), "'2*tau' has the unknown name 'tau' at column 3 (the one constant is pi)");
  EXPECT_EQ(error("1/(2-2)"), "'1/(2-2)' divides by zero at column 2");
  EXPECT_EQ(error("(pi"), "'(pi' has an unclosed '(' at column 1");
  EXPECT_EQ(error("pi)"), "'pi)' has an unmatched ')' at column 3");
  EXPECT_EQ(error("2 pi"), "'2 pi' has 'p' at column 3 where an operator belongs");
  EXPECT_EQ(error("2**pi"), "'2**pi' has '*' at column 3 where a number, pi or '(' belongs");
  EXPECT_EQ(error("1e+*2"), "'1e+*2' has a number without exponent digits at column 1");
  EXPECT_EQ(error("1e1001"), "'1e1001' has a number at column 1 whose exponent is beyond +-1000");
  EXPECT_EQ(error(".*2"), "'.*2' has '.' at column 1 without digits");
  EXPECT_NO_THROW(exact_number::parse(std::string(256, '1')));
  EXPECT_EQ(error(std::string(257, '1').c_str()), "'" + std::string(257, '1') + "' is longer than 256 characters");
  EXPECT_NE(error(std::string(40, '(').append("1").append(40, ')').c_str()).find("nests deeper than the limit depth=32 at column 33"), std::string::npos);
  // pi cancelling into a zero divisor cannot be told from a tiny one: refused at the cap.
  EXPECT_EQ(error("1/(pi-pi)"), "'1/(pi-pi)' cannot be rounded within 131072 bits (pi cancels, leaving a rounding boundary or a zero divisor)");
  // The same where pi cancels into a tie: refused, never rounded the wrong way.
  const auto* tie = "pi/pi*(1+1/9007199254740992)";
  EXPECT_THROW(exact_number::parse(tie)->nearest_double(), pe::spec_error);
}

// ---- in specs ----

constexpr const char* rope_pi = "rope(dim=4, base=10000, rotary_dim=4, layout=neox, freqs=[pi/4, 0.5], truncate_low=0)";

TEST(exact_number, specs_keep_expressions_in_text_and_json) {
  const pe::spec s = parse_spec("rope(dim=4, freqs=[ pi / 4 , 0.5 ])");
  EXPECT_EQ(s.text(), rope_pi);
  EXPECT_EQ(s.reals("freqs")[0], 0x1.921fb54442d18p-1);
  EXPECT_EQ(s.reals("freqs")[1], 0.5);
  EXPECT_EQ(parse_spec(s.text()), s);
  EXPECT_EQ(s.json().dump(), R"({"scheme":"rope","dim":4,"base":10000.0,"rotary_dim":4,"layout":"neox","freqs":["pi/4",0.5],"truncate_low":0.0})");
  EXPECT_EQ(pe::parse_spec_json(nlohmann::json::parse(s.json().dump())).text(), rope_pi);
  // Scalars too, nested ones included; a lone decimal stays a plain number (JSON "0.5" reads as 0.5).
  const pe::spec b = parse_spec("rope(dim=2, base=1e4*pi, scaling=linear(factor=3/2))");
  EXPECT_EQ(b.text(), "rope(dim=2, base=1e4*pi, rotary_dim=2, layout=neox, truncate_low=0, scaling=linear(factor=3/2))");
  EXPECT_EQ(b.real("base"), 0x1.eadfb4c5d390cp+14);
  EXPECT_EQ(b.json()["base"], "1e4*pi");
  EXPECT_EQ(pe::parse_spec_json(nlohmann::json::parse(b.json().dump())), b);
  EXPECT_EQ(pe::parse_spec_any(R"j({"scheme": "rope", "dim": 2, "freqs": ["(0.5)"]})j").text(),
            "rope(dim=2, base=10000, rotary_dim=2, layout=neox, freqs=[0.5], truncate_low=0)");
  // Plain numbers keep today's canonical text and binary64 meaning: 0.1 stays the double 0.1.
  const pe::spec tenth = parse_spec("rope(dim=2, freqs=[0.1])");
  EXPECT_EQ(tenth.text(), "rope(dim=2, base=10000, rotary_dim=2, layout=neox, freqs=[0.1], truncate_low=0)");
  EXPECT_EQ(tenth.expression("freqs", 0), nullptr);
  EXPECT_EQ(pe::real_item_as<mp_real>(tenth, "freqs", 0), mp_real(0.1));
  EXPECT_EQ(parse_spec("sinusoidal(dim=4, base=1e4)").text(), "sinusoidal(dim=4, base=10000, layout=interleaved)");
}

TEST(exact_number, spec_errors_name_the_parameter) {
  EXPECT_EQ(error_of("rope(dim=2, freqs=[pi/])"), "rope: freqs[0]: 'pi/' ends after '/'");
  EXPECT_EQ(error_of(R"({"scheme": "rope", "dim": 2, "freqs": ["pi/"]})"), "rope: freqs[0]: 'pi/' ends after '/'");
  EXPECT_EQ(error_of("rope(dim=4, base=2*tau)"), "rope: base: '2*tau' has the unknown name 'tau' at column 3 (the one constant is pi)");
  EXPECT_EQ(error_of("rope(dim=4, scaling=linear(factor=1/(2-2)))"), "rope: scaling: linear: factor: '1/(2-2)' divides by zero at column 2");
  EXPECT_EQ(error_of("rope(dim=4, base=-pi)"), "rope: base=-pi must be > 1");
  EXPECT_EQ(error_of("rope(dim=4, base=1e400/1)"), "rope: base=1e400/1 is not finite");
  EXPECT_EQ(error_of("rope(dim=2, freqs=[-pi/4])"), "rope: freqs has -0.7853981633974483, which is negative");
  EXPECT_EQ(error_of("rope(dim=4, base=abc)"), "rope: base=abc is not a number");  // a bare word: as before
  EXPECT_EQ(error_of("rope(dim=2*2)"), "rope: dim=2*2 is not an integer");        // integers take no expressions
}

// The reference reads rope's freqs and base, its scalings' reals and sinusoidal's base exactly at
// MPFR precision, and their correctly rounded doubles in binary formats.
TEST(exact_number, reference_reads_exact_values) {
  pe::mp_precision scope(256);
  const pe::spec s = parse_spec("rope(dim=4, freqs=[pi/4, 0.5])");
  const auto inv = pe::rope_inv_freq<mp_real>(s);
  EXPECT_TRUE(mpfr_equal_p(inv[0].value.data[0].backend().data(), decimal_at(pi_over_4_at_256, 256).backend().data()));
  EXPECT_EQ(pe::rope_inv_freq<double>(s)[0].value.data[0], 0x1.921fb54442d18p-1);
  EXPECT_EQ(pe::reals_as<double>(s, "freqs"), (std::vector<double>{0x1.921fb54442d18p-1, 0.5}));
  // A law keyed by an expression is not the law of its rounded double (frequency_cache.hpp).
  const pe::spec rounded = parse_spec("rope(dim=4, freqs=[0.7853981633974483, 0.5])");
  EXPECT_NE(pe::rope_frequencies::of(s, std::nullopt).cache_key(), pe::rope_frequencies::of(rounded, std::nullopt).cache_key());
  EXPECT_NE(pe::rope_inv_freq<mp_real>(rounded)[0].value.data[0], inv[0].value.data[0]);
  // sinusoidal's base: omega_1 = (1e4 pi)^(-1/2) at dim 4; mpmath at 1000 bits, 90 digits.
  const auto omegas = pe::sinusoidal_omegas<mp_real>(parse_spec("sinusoidal(dim=4, base=1e4*pi)"));
  const mp_real expected = decimal_at("0.0056418958354775628694807945156077258584405062932899885684408572171064246844149341448674366", 400);
  EXPECT_LT(abs(omegas[1] - expected) / expected, mp_real(1e-75));
  const auto rounded_base = pe::sinusoidal_omegas<mp_real>(parse_spec("sinusoidal(dim=4, base=31415.926535897932)"));
  EXPECT_GT(abs(rounded_base[1] - expected) / expected, mp_real(1e-20));
}

// inv_freq and attention_factor are rational for explicit freqs: next to a rounding boundary of the
// output format the wide (256-bit) value alone rounds the wrong way (1 + 2^-53 + 10^-300 is the
// midpoint 1 + 2^-53 at 256 bits, and ties to even give 1). Each is decided by computing again
// with more bits (decided_rounding.hpp); an exact midpoint still rounds to even.
TEST(exact_number, inv_freq_is_correctly_rounded_next_to_a_rounding_boundary) {
  const auto inv = [](const std::string& freqs) { return pe::rope_inv_freq<double>(parse_spec("rope(dim=2, freqs=[" + freqs + "])"))[0].value.data[0]; };
  EXPECT_EQ(inv("1+1/9007199254740992+1e-300"), 0x1.0000000000001p+0);
  EXPECT_EQ(inv("1+1/9007199254740992-1e-300"), 1.0);
  EXPECT_EQ(inv("1+1/9007199254740992"), 1.0);                          // the midpoint: to even
  EXPECT_EQ(inv("1+3/9007199254740992"), 0x1.0000000000002p+0);         // the midpoint: to even (up)
  EXPECT_EQ(inv("1+1/9007199254740992+1e-1000"), 0x1.0000000000001p+0); // decided at 4096 bits
  EXPECT_EQ(inv("1/3"), 0x1.5555555555555p-2);                          // far from a boundary
  // The narrower formats, each next to its own midpoint.
  const auto narrow = [](const std::string& freqs, auto type) {
    return static_cast<double>(pe::rope_inv_freq<decltype(type)>(parse_spec("rope(dim=2, freqs=[" + freqs + "])"))[0].value.data[0]);
  };
  EXPECT_EQ(narrow("1+1/16777216+1e-300", float{}), 0x1.000002p+0);
  EXPECT_EQ(narrow("1+1/16777216-1e-300", float{}), 1.0);
  EXPECT_EQ(narrow("1+1/256+1e-300", pe::bf16{}), 0x1.02p+0);
  EXPECT_EQ(narrow("1+1/2048+1e-300", pe::fp16{}), 0x1.004p+0);
  // attention_factor, YaRN's written one.
  const pe::spec yarn = parse_spec("rope(dim=2, scaling=yarn(factor=4, original_max=2048, attention_factor=1+1/9007199254740992+1e-300))");
  EXPECT_EQ(pe::rope_inv_freq<double>(yarn)[1].value.data[0], 0x1.0000000000001p+0);
  // MPFR outputs too: at 256 bits the midpoint is 1 + 2^-256, and the wide value (448 bits) loses
  // the 10^-300.
  pe::mp_precision scope(256);
  const mp_real at_256 = pe::rope_inv_freq<mp_real>(parse_spec(
      "rope(dim=2, freqs=[1+1/115792089237316195423570985008687907853269984665640564039457584007913129639936+1e-300])"))[0].value.data[0];
  mp_real next = 1;
  mpfr_set_prec(next.backend().data(), 256);
  mpfr_set_ui(next.backend().data(), 1, MPFR_RNDN);
  mpfr_nextabove(next.backend().data());  // 1 + 2^-255
  EXPECT_TRUE(mpfr_equal_p(at_256.backend().data(), next.backend().data()));
}

}  // namespace
