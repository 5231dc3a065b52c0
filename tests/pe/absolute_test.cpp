// Tests for src/pe/schemes/absolute.hpp: integer, normalized, binary, learned and none, and seed 000's claims about them.
#include "pe/schemes/absolute.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <vector>

#include "pe/encode.hpp"

namespace {

using pe::parse_spec;

template <class T = double>
pe::tensor<T> enc(const char* text, std::vector<std::int64_t> pos) {
  return pe::encode<T>(parse_spec(text), pos);
}

std::string input_error_of(const char* text, std::vector<std::int64_t> pos) {
  try {
    enc(text, pos);
  } catch (const pe::input_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(integer, repeats_the_position_and_grows_without_bound) {
  // Seed 000, option 1: position 30 is [30, 30, 30, 30].
  const auto pe = enc("integer(dim=4)", {0, 1, 30});
  EXPECT_EQ(pe.shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(pe(2, 0), 30.0);
  EXPECT_EQ(pe(2, 3), 30.0);
  EXPECT_EQ(pe(1, 2), 1.0);
  EXPECT_EQ(enc("integer(dim=1)", {-5})(0, 0), -5.0);
}

TEST(integer, low_precision_positions_merge) {
  // bf16 has 8 significant bits: 257 is stored as 256, so two positions share one code.
  const auto b = enc<pe::bf16>("integer(dim=1)", {256, 257, 258});
  EXPECT_EQ(b(0, 0).bits(), b(1, 0).bits());
  EXPECT_NE(b(1, 0).bits(), b(2, 0).bits());
  EXPECT_EQ(static_cast<double>(b(1, 0)), 256.0);
  // f16 merges 2048 and 2049; float merges 2^24 and 2^24 + 1; double keeps them apart.
  const auto h = enc<pe::fp16>("integer(dim=1)", {2048, 2049});
  EXPECT_EQ(h(0, 0).bits(), h(1, 0).bits());
  const std::int64_t p24 = std::int64_t{1} << 24;
  EXPECT_EQ(enc<float>("integer(dim=1)", {p24, p24 + 1})(1, 0), static_cast<float>(p24));
  EXPECT_EQ(enc("integer(dim=1)", {p24 + 1})(0, 0), static_cast<double>(p24 + 1));
}

TEST(normalized, depends_on_the_sequence_length) {
  // Position 1 is 1/4 in a sequence of 4 and 1/5 in a sequence of 5: the code of a position
  // changes with the length of the sentence around it (seed 000's point).
  EXPECT_EQ(enc("normalized(dim=4, length=4)", {1})(0, 0), 0.25);
  EXPECT_EQ(enc("normalized(dim=4, length=5)", {1})(0, 0), 0.2);
  EXPECT_EQ(enc("normalized(dim=4, length=3)", {1})(0, 3), 1.0 / 3.0);
}

TEST(normalized, seed_000_numbers_use_two_different_divisors) {
  // Seed 000 says position 1 is 0.33 when N = 4 and 0.20 when N = 5. 0.33 is 1/(N-1) (the
  // last 0-based position maps to 1, as its "always [1,1,1,1]" claims); 0.20 is 1/N. No one
  // formula gives both: p/N gives 0.25 and 0.20, p/(N-1) gives 0.33 and 0.25. pecheck uses
  // p / length, under which the last word is (N-1)/N, not 1.
  const double n4 = enc("normalized(dim=1, length=4)", {1})(0, 0);
  const double n5 = enc("normalized(dim=1, length=5)", {1})(0, 0);
  EXPECT_NE(std::round(n4 * 100) / 100, 0.33);   // the lesson's 0.33 is not p/N
  EXPECT_EQ(std::round(n5 * 100) / 100, 0.20);   // its 0.20 is
  EXPECT_EQ(std::round(1.0 / (4 - 1) * 100) / 100, 0.33);
  EXPECT_NE(std::round(1.0 / (5 - 1) * 100) / 100, 0.20);
  EXPECT_EQ(enc("normalized(dim=1, length=4)", {3})(0, 0), 0.75);  // last word of 4 is 0.75, not 1
}

TEST(normalized, positions_outside_the_sequence_are_errors) {
  EXPECT_EQ(input_error_of("normalized(dim=2, length=4)", {4}),
            "normalized: position 4 is outside the sequence [0, 4) of length=4");
  EXPECT_EQ(input_error_of("normalized(dim=2, length=4)", {-1}),
            "normalized: position -1 is outside the sequence [0, 4) of length=4");
}

TEST(binary, bits_least_significant_first) {
  const auto pe = enc("binary(dim=4)", {0, 1, 2, 3, 4, 5, 6, 7});
  // Seed 000: the least significant column alternates 0,1,0,1; the next 0,0,1,1; the next 0,0,0,0,1,1,1,1.
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(pe(p, 0), p & 1);
    EXPECT_EQ(pe(p, 1), (p >> 1) & 1);
    EXPECT_EQ(pe(p, 2), (p >> 2) & 1);
    EXPECT_EQ(pe(p, 3), 0.0);
  }
  EXPECT_EQ(enc("binary(dim=70)", {std::int64_t{1} << 62})(0, 62), 1.0);
  EXPECT_EQ(enc("binary(dim=70)", {std::int64_t{1} << 62})(0, 69), 0.0);
}

TEST(binary, codes_alias_past_two_to_the_dim) {
  const auto pe = enc("binary(dim=4)", {3, 19});  // 19 = 3 + 2^4
  for (int j = 0; j < 4; ++j) EXPECT_EQ(pe(0, j), pe(1, j));
  EXPECT_EQ(input_error_of("binary(dim=4)", {-2}), "binary: position -2 is negative; bits need p >= 0");
}

// Box-Muller from splitmix64 written again here, in plain double, as an independent check of the table.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

TEST(learned, table_is_box_muller_of_splitmix64) {
  // Published first output of splitmix64 seeded with 0.
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafULL);
  const std::int64_t dim = 6;
  const auto pe = enc("learned(dim=6, max_len=10, init_std=0.02, seed=42)", {0, 9, 4});
  const std::int64_t rows[] = {0, 9, 4};
  for (int t = 0; t < 3; ++t) {
    for (std::int64_t j = 0; j < dim; ++j) {
      const std::uint64_t index = static_cast<std::uint64_t>(rows[t] * dim + j);
      const std::uint64_t stream = splitmix64(42);
      const double u1 = std::ldexp(static_cast<double>((splitmix64(stream + 2 * index) >> 11) + 1), -53);
      const double u2 = std::ldexp(static_cast<double>(splitmix64(stream + 2 * index + 1) >> 11), -53);
      const double radius = 0.02 * std::sqrt(-2 * std::log(u1));
      const double want = radius * std::cos(2 * M_PI * u2);
      // This plain-double version rounds the angle 2 pi u2 (absolute error <= 2 pi 2^-53 = 3.2 eps, which
      // cos passes on as an absolute error times radius) and then log, sqrt, cos and two products
      // (a few eps relative). So |difference| <= radius * 8 eps + 8 eps |want|.
      const double eps = std::numeric_limits<double>::epsilon();
      EXPECT_NEAR(pe(t, j), want, radius * 8 * eps + 8 * eps * std::fabs(want));
    }
  }
}

TEST(learned, entries_have_the_requested_spread_and_the_seed_matters) {
  std::vector<std::int64_t> pos(1024);
  for (int p = 0; p < 1024; ++p) pos[p] = p;
  const auto pe = enc("learned(dim=64, max_len=1024, init_std=0.02)", pos);
  double sum = 0, sum2 = 0;
  for (double v : pe.data) sum += v, sum2 += v * v;
  const double n = static_cast<double>(pe.data.size());  // 65536 entries
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  // Sampling error: sd(mean) = 0.02/sqrt(n) = 7.8e-5 and sd(sd) = 0.02/sqrt(2n) = 5.5e-5; allow 5 of each.
  EXPECT_LT(std::fabs(mean), 5 * 0.02 / std::sqrt(n));
  EXPECT_LT(std::fabs(sd - 0.02), 5 * 0.02 / std::sqrt(2 * n));
  EXPECT_NE(enc("learned(dim=2, max_len=2, seed=1)", {0})(0, 0), enc("learned(dim=2, max_len=2, seed=2)", {0})(0, 0));
  EXPECT_EQ(enc("learned(dim=2, max_len=2, seed=1)", {1})(0, 1), enc("learned(dim=2, max_len=2, seed=1)", {1})(0, 1));
}

TEST(learned, positions_past_the_table_are_errors_not_wraps) {
  EXPECT_EQ(input_error_of("learned(dim=2, max_len=1024)", {1024}),
            "learned: position 1024 is outside the table [0, 1024) (max_len=1024)");
  EXPECT_EQ(input_error_of("learned(dim=2, max_len=1024)", {-1}),
            "learned: position -1 is outside the table [0, 1024) (max_len=1024)");
}

TEST(none, adds_nothing) {
  const auto pe = enc("none(dim=3)", {0, 5});
  EXPECT_EQ(pe.shape, (std::vector<std::int64_t>{2, 3}));
  for (double v : pe.data) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(enc("none()", {1, 2}).shape, (std::vector<std::int64_t>{2, 0}));
}

}  // namespace

namespace {

// Positions above 2^53 reach float, bf16 and fp16 with one rounding, never through double.
TEST(integer, large_positions_round_once) {
  const std::int64_t p = (std::int64_t{1} << 60) + (std::int64_t{1} << 36) + 1;  // just above a float tie
  EXPECT_EQ(enc<float>("integer(dim=1)", {p})(0, 0), 0x1.000002p60f);
  const std::int64_t q = (std::int64_t{1} << 60) + (std::int64_t{1} << 52) + 1;  // just above a bf16 tie
  EXPECT_EQ(static_cast<double>(enc<pe::bf16>("integer(dim=1)", {q})(0, 0)), 0x1.02p60);
  pe::mp_precision scope(64);
  EXPECT_EQ(enc<pe::mp_real>("integer(dim=1)", {std::numeric_limits<std::int64_t>::max()})(0, 0),
            pe::mp_real(std::numeric_limits<std::int64_t>::max()));
}

TEST(normalized, is_one_correctly_rounded_division_at_any_size) {
  // 2^53 / (2^53 + 1) is just below 1: the nearest double is 1 - 2^-53, never 1.
  EXPECT_EQ(enc("normalized(dim=1, length=9007199254740993)", {9007199254740992})(0, 0), 1 - 0x1p-53);
  EXPECT_EQ(enc("normalized(dim=1, length=28450210524974225)", {13064160533018205})(0, 0),
            0x1.d636e6ddd3833p-2);  // Python: float(Fraction(13064160533018205, 28450210524974225))
  // At 256 bits, against the quotient at 1024 bits rounded to 256 (an exact tie is impossible
  // for these operands, so rounding twice gives the same answer as once).
  std::mt19937_64 rng(7);
  for (int k = 0; k < 2000; ++k) {
    const std::int64_t length = static_cast<std::int64_t>(rng() >> 2) + 1;
    const std::int64_t p = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(length));
    pe::mp_precision scope(256);
    const pe::spec s = parse_spec(fmt::format("normalized(dim=1, length={})", length));
    const pe::mp_real got = pe::encode<pe::mp_real>(s, std::vector<std::int64_t>{p})(0, 0);
    pe::mp_working_bits wide(1024);
    const pe::mp_real want = pe::round_to_bits(pe::mp_real(p) / pe::mp_real(length), 256);
    ASSERT_EQ(got, want) << "p=" << p << " length=" << length;
  }
}

}  // namespace
