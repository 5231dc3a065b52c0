// Two families may name their laws alike: each property must still run its own body (make_property's linkage).
#include <gtest/gtest.h>

#include "pe/spec.hpp"
#include "properties/backend.hpp"
#include "properties/property.hpp"

namespace pe::props {
property first_same_name();
property second_same_name();
}  // namespace pe::props

TEST(law_linkage, same_named_laws_in_two_files_keep_their_own_bodies) {
  // xpos.long_term_decay once ran rope.long_term_decay's body this way: the linker had merged them.
  const pe::props::reference_backend<double> in_double;
  const pe::props::reference_backend<pe::mp_real> in_mp;
  const pe::spec s = pe::parse_spec("none()");
  const auto first = pe::props::first_same_name(), second = pe::props::second_same_name();
  EXPECT_EQ(first.in_double(in_double, s).residual, 1);
  EXPECT_EQ(second.in_double(in_double, s).residual, 2);
  EXPECT_EQ(first.in_mp(in_mp, s).residual, 1);
  EXPECT_EQ(second.in_mp(in_mp, s).residual, 2);
}
