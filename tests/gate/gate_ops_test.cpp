// Tests for src/gate/gate_ops.hpp: every op an implementation may be handed has the gate's pieces
// (a draw and a bound), and the table names no op the op schemas lack.
#include "gate/gate_ops.hpp"

#include <gtest/gtest.h>

#include <set>

#include "pe/op_schema.hpp"

namespace {

TEST(gate_ops, every_op_an_implementation_is_handed_has_a_draw_and_a_bound) {
  std::set<std::string_view> handed;
  for (const auto& o : pe::op_schemas()) {
    if (o.reference_only) {
      EXPECT_THROW(pe::gate::gate_op_of(o.op), std::logic_error) << o.op << " is the reference's alone";
      continue;
    }
    handed.insert(o.op);
    const pe::gate::gate_op& g = pe::gate::gate_op_of(o.op);
    EXPECT_NE(g.draw, nullptr) << o.op << " has no draw";
    EXPECT_NE(g.bounds, nullptr) << o.op << " has no bound";
  }
  int leading = 0;
  for (const auto& g : pe::gate::gate_op_table()) {
    EXPECT_TRUE(handed.count(g.op)) << "the gate's table names " << g.op << ", which no op schema an implementation is handed has";
    leading += g.leads ? 1 : 0;
  }
  EXPECT_EQ(leading, 1) << "one op leads a scheme's checks";
  EXPECT_THROW(pe::gate::gate_op_of("teleport"), std::logic_error);
}

}  // namespace
