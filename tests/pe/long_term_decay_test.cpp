// Tests of src/pe/long_term_decay.hpp: the bound's closed forms, binary64 against MPFR, and the golden table.
#include "pe/long_term_decay.hpp"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "golden/figures.hpp"
#include "pe/error.hpp"

namespace pe {
namespace {

TEST(roformer_decay_bound, at_distance_0_every_phase_aligns_so_it_is_p_plus_1_over_2) {
  // S_j = j, so (1/P) sum_{j=1..P} j = (P + 1) / 2.
  EXPECT_EQ(roformer_decay_bound<double>(128, 10000, 0), 32.5);
  EXPECT_EQ(roformer_decay_bound<double>(8, 500000, 0), 2.5);
  const mp_precision scope(256);
  EXPECT_EQ(roformer_decay_bound<mp_real>(128, 10000, 0), mp_real(32.5));
}

TEST(roformer_decay_bound, one_pair_has_a_bound_of_1_at_every_distance) {
  for (const std::int64_t r : {1, 7, 1000, 123456789}) EXPECT_NEAR(roformer_decay_bound<double>(2, 10000, r), 1, 1e-15) << r;
}

TEST(roformer_decay_bound, binary64_agrees_with_mpfr_within_its_error_bound) {
  const mp_precision scope(256);
  for (const std::int64_t r : {3, 10, 250, 1000, 65536}) {
    const double wide = roformer_decay_bound<mp_real>(128, 10000, r).convert_to<double>();
    // Each angle r theta_k is off by <= 4u r theta_k <= 4u r (pow within 2 ulps, the product);
    // S_j by the sum of its j angles' errors, so Sigma/P by <= 4u r (P + 1)/2; the sums and the
    // moduli add <= 4P u times the value (proofs/rope.long_term_decay.md, "The figure").
    const double u = 0x1p-53, p = 64;
    EXPECT_NEAR(roformer_decay_bound<double>(128, 10000, r), wide, u * (2 * r * (p + 1) + 4 * p * wide)) << r;
  }
}

TEST(roformer_decay_bound, odd_dims_and_small_bases_are_refused) {
  EXPECT_THROW(roformer_decay_bound<double>(127, 10000, 1), input_error);
  EXPECT_THROW(roformer_decay_bound<double>(128, 1, 1), input_error);
}

TEST(roformer_decay_bound, the_golden_table_holds_the_mpfr_values) {
  std::ifstream in(std::string(PECHECK_SOURCE_DIR) + "/golden/" + golden::decay_table_path);
  ASSERT_TRUE(in) << golden::decay_table_path;
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), golden::decay_table_text());
  // And the values an independent computation (mpmath at 300 bits, by hand from the paper's
  // formula) gave when the table was made: 45 digits at 10 and 1000.
  EXPECT_NE(text.str().find("\n10 17.95413713708483374732684111282690641973\n"), std::string::npos);
  EXPECT_NE(text.str().find("\n1000 4.470761034248682910848404428445404688245\n"), std::string::npos);
}

}  // namespace
}  // namespace pe
