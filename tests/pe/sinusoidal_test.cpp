// Tests for src/pe/schemes/sinusoidal.hpp: layouts, frequencies, every precision, and the numbers in seeds 000 and 004.
#include "pe/schemes/sinusoidal.hpp"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "pe/encode.hpp"
#include "pe/parallel.hpp"
#include "pe/ulp.hpp"

namespace {

using pe::mp_real;
using pe::parse_spec;

// "The cat sat" (seed 000's dry run): d_model = 4, positions 0, 1, 2, row by row
// [sin(p), cos(p), sin(p/100), cos(p/100)], from mpmath 1.3.0 at 60 digits.
const char* const cat_sat[] = {
    "0", "1", "0", "1",
    "0.8414709848078965066525023216302989996226", "0.5403023058681397174009366074429766037323",
    "0.009999833334166664682542438269099729038964", "0.9999500004166652777802579337522066732125",
    "0.9092974268256816953960198659117448427023", "-0.416146836547142386997568229500762189766",
    "0.01999866669333307936649029469297451517168", "0.9998000066665777784126955908374752631261"};

TEST(sinusoidal, the_cat_sat_table_in_binary64) {
  const auto pe = pe::encode<double>(parse_spec("sinusoidal(dim=4)"), std::vector<std::int64_t>{0, 1, 2});
  ASSERT_EQ(pe.data.size(), 12u);
  pe::mp_precision scope(256);
  for (size_t k = 0; k < 12; ++k) {
    // Every entry is the binary64 nearest the true value (within half an ulp).
    EXPECT_LE(pe::error_in_ulps(pe.data[k], mp_real(cat_sat[k]), pe::binary64), 0.5) << "entry " << k;
  }
}

TEST(sinusoidal, the_cat_sat_table_at_256_bits) {
  pe::mp_precision scope(256);
  const auto pe = pe::encode<mp_real>(parse_spec("sinusoidal(dim=4)"), std::vector<std::int64_t>{0, 1, 2});
  for (size_t k = 0; k < 12; ++k) {
    EXPECT_EQ(pe::bits_of(pe.data[k]), 256u);
    EXPECT_LT(abs(pe.data[k] - mp_real(cat_sat[k])), mp_real("1e-40")) << "entry " << k;  // the literals' 40 digits
  }
  // sin(1) to 75 digits against mpmath's 80.
  EXPECT_LT(abs(pe.data[4] - mp_real("0.84147098480789650665250232163029899962256306079837106567275170999191040439123967")),
            mp_real("1e-75"));
}

// What seed 000 printed (two decimals) for the same table. Rounding the true values to two
// decimals reproduces every entry except cos(0.01) = 0.99995 and cos(0.02) = 0.99980, which
// the lesson truncates to 0.99 (rounded, both are 1.00), while it rounds cos(2) = -0.4161 to
// -0.42 (truncated it would be -0.41). pecheck records the inconsistency.
TEST(sinusoidal, seed_000_rounds_loosely_in_two_places) {
  const char* const lesson[] = {"0.00", "1.00", "0.00", "1.00", "0.84", "0.54", "0.01", "0.99",
                                "0.91", "-0.42", "0.02", "0.99"};
  const auto pe = pe::encode<double>(parse_spec("sinusoidal(dim=4)"), std::vector<std::int64_t>{0, 1, 2});
  std::vector<size_t> disagree;
  for (size_t k = 0; k < 12; ++k)
    if (fmt::format("{:.2f}", pe.data[k]) != lesson[k]) disagree.push_back(k);
  EXPECT_EQ(disagree, (std::vector<size_t>{7, 11}));  // cos(0.01) and cos(0.02)
  EXPECT_EQ(fmt::format("{:.2f}", pe.data[7]), "1.00");
  EXPECT_EQ(std::trunc(pe.data[7] * 100) / 100, 0.99);   // what the lesson did there
  EXPECT_EQ(std::trunc(pe.data[9] * 100) / 100, -0.41);  // and did not do for cos(2)
}

// Seed 000's example C: at d_model = 512, pair i = 255 has denominator 10000^(510/512), which
// the lesson rounds to 10000^1 = 10000. It is 9646.616..., 3.5% smaller; example B (i = 128,
// denominator 100) is exact.
TEST(sinusoidal, seed_000_example_c_rounds_the_exponent) {
  const auto omega = pe::sinusoidal_omegas<double>(parse_spec("sinusoidal(dim=512)"));
  EXPECT_NEAR(1 / omega[255], 9646.6161991119921371, 1e-9);
  EXPECT_GT(std::fabs(1 / omega[255] - 10000) / 10000, 0.03);
  EXPECT_NEAR(1 / omega[128], 100.0, 1e-12);
}

// Seed 004, d_model = 768: omega_i = 10000^(-2i/768) and wavelength lambda_i = 2 pi / omega_i.
// Values from mpmath: omega_32 = 0.46415888336127788924, lambda_32 = 13.536712389686338498,
// omega_128 = 0.046415888336127788924, lambda_128 = 135.36712389686338498,
// omega_383 = 0.00010242752213815922608, lambda_383 = 61342.744372010877983.
TEST(sinusoidal, seed_004_frequencies_and_wavelengths) {
  pe::mp_precision scope(256);
  const auto omega = pe::sinusoidal_omegas<mp_real>(parse_spec("sinusoidal(dim=768)"));
  ASSERT_EQ(omega.size(), 384u);
  const auto wavelength = [&](int i) { return pe::two_pi() / omega[i]; };
  EXPECT_LT(abs(omega[32] - mp_real("0.4641588833612778892410076350919446576551")), mp_real("1e-39"));
  EXPECT_LT(abs(wavelength(32) - mp_real("13.53671238968633849783891776118868176001")), mp_real("1e-37"));
  EXPECT_LT(abs(omega[128] - mp_real("0.04641588833612778892410076350919446576551")), mp_real("1e-40"));
  EXPECT_LT(abs(wavelength(128) - mp_real("135.3671238968633849783891776118868176001")), mp_real("1e-36"));
  EXPECT_LT(abs(omega[383] - mp_real("0.0001024275221381592260807337015996642391023")), mp_real("1e-43"));
  EXPECT_LT(abs(wavelength(383) - mp_real("61342.74437201087798277479544456800953722")), mp_real("1e-34"));
  // The lesson's printed roundings all hold.
  const auto rounded = [](const mp_real& x, int decimals) { return fmt::format("{:.{}f}", static_cast<double>(x), decimals); };
  EXPECT_EQ(rounded(omega[0], 1), "1.0");
  EXPECT_EQ(rounded(wavelength(0), 2), "6.28");
  EXPECT_EQ(rounded(omega[32], 3), "0.464");
  EXPECT_EQ(rounded(wavelength(32), 2), "13.54");
  EXPECT_EQ(rounded(omega[128], 4), "0.0464");
  EXPECT_EQ(rounded(wavelength(128), 2), "135.37");
  EXPECT_EQ(rounded(omega[383], 7), "0.0001024");
  EXPECT_EQ(rounded(wavelength(383), 2), "61342.74");
  // Its "clock" picture does not: the fastest pair turns once every 2 pi = 6.28 tokens, not
  // every 2 steps, and the slowest once every 61,342.74, not every 10,000.
  EXPECT_GT(static_cast<double>(wavelength(0)), 3 * 2.0);
  EXPECT_GT(static_cast<double>(wavelength(383)), 6 * 10000.0);
}

TEST(sinusoidal, concat_is_the_interleaved_code_rearranged) {
  const std::vector<std::int64_t> pos{0, 3, 1000, std::int64_t{1} << 35};
  const auto inter = pe::encode<double>(parse_spec("sinusoidal(dim=10, base=500)"), pos);
  const auto concat = pe::encode<double>(parse_spec("sinusoidal(dim=10, base=500, layout=concat)"), pos);
  for (size_t t = 0; t < pos.size(); ++t) {
    for (int i = 0; i < 5; ++i) {
      EXPECT_EQ(concat(t, i), inter(t, 2 * i));
      EXPECT_EQ(concat(t, 5 + i), inter(t, 2 * i + 1));
    }
  }
}

TEST(sinusoidal, fairseq_divides_the_exponent_by_half_dim_minus_one) {
  // dim = 8: omega_i = 10000^(-i/3), so the last frequency is exactly 1/base. Position 3,
  // [sin(3 omega_i) | cos(3 omega_i)], from mpmath at 60 digits.
  const char* const want[] = {"0.1411200080598672221007448028081102798469", "0.1387981010800505285673542798600189712619",
                              "0.00646325907018964324567151698501094510542", "0.0002999999955000000202499999566071429113839",
                              "-0.9899924966004454572715727947312613023937", "0.9903206991356749765748328382308807012443",
                              "0.9999791129229608120336357596561791927672", "0.9999999550000003374999989875000016272321"};
  const auto pe = pe::encode<double>(parse_spec("sinusoidal(dim=8, layout=fairseq)"), std::vector<std::int64_t>{3});
  pe::mp_precision scope(256);
  for (int k = 0; k < 8; ++k) EXPECT_LE(pe::error_in_ulps(pe(0, k), mp_real(want[k]), pe::binary64), 1.0) << k;
  const auto omega = pe::sinusoidal_omegas<mp_real>(parse_spec("sinusoidal(dim=8, layout=fairseq)"));
  EXPECT_LT(abs(omega[3] - mp_real("0.0001")), mp_real("1e-70"));
}

// Every stored precision is the truth correctly rounded, bit for bit: binary64 from the fast
// kernels or MPFR where they decline, and binary32, bf16 and fp16 that double rounded once more
// (proofs/precision.fast_rotate.md, "encode"). The truth is MPFR at 256 bits rounded once to T:
// the same value unless it lies within 2^-256 of a midpoint.
template <class T>
std::int64_t misrounded(const pe::spec& s, const std::vector<std::int64_t>& pos) {
  const auto got = pe::encode<T>(s, pos);
  pe::mp_precision scope(256);
  const auto exact = pe::encode<mp_real>(s, pos);
  std::int64_t wrong = 0;
  for (size_t k = 0; k < exact.data.size(); ++k) {
    const T want = pe::store_as<T>(exact.data[k]);
    const bool same = static_cast<double>(got.data[k]) == static_cast<double>(want) && std::signbit(static_cast<double>(got.data[k])) == std::signbit(static_cast<double>(want));
    if (!same) ADD_FAILURE() << s.text() << " entry " << k << ": " << static_cast<double>(got.data[k]) << " is not " << static_cast<double>(want);
    wrong += !same;
  }
  return wrong;
}

RC_GTEST_PROP(sinusoidal, every_precision_is_correctly_rounded, ()) {
  const int dim = 2 * *rc::gen::inRange(1, 17);
  const double base = *rc::gen::element(10.0, 10000.0, 1000000.0);
  const std::string layout = *rc::gen::element<std::string>("interleaved", "concat", "fairseq");
  RC_PRE(!(layout == "fairseq" && dim == 2));
  const std::int64_t reach = std::int64_t{1} << *rc::gen::element(4, 40, 62);
  auto pos = *rc::gen::container<std::vector<std::int64_t>>(3, rc::gen::inRange<std::int64_t>(-reach, reach));
  pos.push_back(0);  // sin 0 = +0: declined by the kernels, from MPFR
  const pe::spec s = parse_spec(fmt::format("sinusoidal(dim={}, base={}, layout={})", dim, base, layout));
  RC_ASSERT(misrounded<double>(s, pos) == 0);
  RC_ASSERT(misrounded<float>(s, pos) == 0);
  RC_ASSERT(misrounded<pe::bf16>(s, pos) == 0);
  RC_ASSERT(misrounded<pe::fp16>(s, pos) == 0);
}

// Enough tokens that two threads split them, with position 0 (declined pairs) inside both
// ranges: the declined pairs land at their own tokens and slots.
TEST(sinusoidal, binary64_across_threads_is_correctly_rounded) {
  const int threads = pe::worker_threads();
  pe::set_worker_threads(2);
  std::vector<std::int64_t> pos;
  for (std::int64_t t = 0; t < 2048; ++t) pos.push_back(t % 700 == 0 ? 0 : t * 104729 - 1000000);
  for (const char* text : {"sinusoidal(dim=32)", "sinusoidal(dim=32, layout=concat)", "sinusoidal(dim=32, layout=fairseq)"})
    EXPECT_EQ(misrounded<double>(parse_spec(text), pos), 0) << text;
  pe::set_worker_threads(threads);
}

TEST(sinusoidal, values_stay_on_the_unit_circle_at_any_position) {
  const std::vector<std::int64_t> pos{std::numeric_limits<std::int64_t>::min(), -1, 0, std::int64_t{1} << 62,
                                      std::numeric_limits<std::int64_t>::max()};
  const auto pe = pe::encode<double>(parse_spec("sinusoidal(dim=64)"), pos);
  for (size_t t = 0; t < pos.size(); ++t)
    for (int i = 0; i < 32; ++i) {
      const double r2 = pe(t, 2 * i) * pe(t, 2 * i) + pe(t, 2 * i + 1) * pe(t, 2 * i + 1);
      EXPECT_NEAR(r2, 1.0, 4 * std::numeric_limits<double>::epsilon()) << "p=" << pos[t] << " i=" << i;
    }
}

}  // namespace
