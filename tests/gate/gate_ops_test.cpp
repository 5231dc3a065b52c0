// Tests for src/gate/gate_ops.hpp: every op an implementation may be handed has the gate's pieces
// (a draw and a bound), and the table names no op the op schemas lack.
#include "gate/gate_ops.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "gate/op_io.hpp"
#include "pe/op_chunks.hpp"
#include "pe/op_schema.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/spec.hpp"

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

// The tables an op is handed (op_schema's `table`) come in the table dtype, everything else real in
// the I/O dtype: --table-dtype f32 at bf16 I/O hands apply_tables binary32 cos and sin, rounded so.
TEST(gate_ops, tables_are_handed_in_the_table_dtype) {
  using pe::gate::dtype;
  const pe::spec s = pe::parse_spec("rope(dim=4)");
  pe::op_inputs in;
  in.pos = {7};
  in.x = pe::tensor<double>({1, 1, 4});
  in.x.data = {1.0 / 3, 0.25, -0.5, 2};
  in.cos = pe::tensor<double>({1, 2});
  in.sin = pe::tensor<double>({1, 2});
  in.cos.data = {1.0 / 3, 0.5};
  in.sin.data = {-1.0 / 3, 0.5};
  for (const auto& t : pe::gate::io_inputs("apply_tables", s, in, dtype::bf16, dtype::f32)) {
    EXPECT_EQ(t.type, t.name == "x" ? dtype::bf16 : dtype::f32) << t.name;
    if (t.name == "cos") {
      EXPECT_EQ(t.at(0), static_cast<double>(1.0f / 3)) << "cos rounded to binary32, not bf16";
    }
  }
  const auto rounded = pe::gate::rounded_inputs("apply_tables", s, in, dtype::bf16, dtype::f32);
  EXPECT_EQ(rounded.sin.data[0], static_cast<double>(-1.0f / 3));
  EXPECT_NE(rounded.x.data[0], static_cast<double>(1.0f / 3)) << "x rounded to bf16";
  for (const auto& t : pe::gate::io_inputs("rotate", s, in, dtype::bf16, dtype::f32)) EXPECT_NE(t.type, dtype::f32) << t.name;
}

// Every op audit sweeps gives, for a range of a swept call's tokens (token_range, as the sweep's
// MPFR cross-check runs one token), the rows of the whole call: its sweep call's inputs are rows
// per token.
TEST(gate_ops, a_swept_call_splits_by_token) {
  const std::vector<pe::spec> specs{pe::parse_spec("rope(dim=8, rotary_dim=6)"), pe::parse_spec("sinusoidal(dim=8)")};
  int swept = 0;
  for (const auto& g : pe::gate::gate_op_table()) {
    if (!g.sweep) continue;
    const auto s = std::find_if(specs.begin(), specs.end(), [&](const pe::spec& c) {
      const auto& ops = c.info().ops;
      return std::find(ops.begin(), ops.end(), g.op) != ops.end();
    });
    ASSERT_NE(s, specs.end()) << g.op << ": no spec here lists it";
    pe::op_inputs in;
    in.pos = {3, 100, 7};
    pe::tensor<double> rows({3, 2, 8});
    for (std::size_t e = 0; e < rows.data.size(); ++e) rows.data[e] = std::ldexp(static_cast<double>(e % 7) - 3, -2);
    g.sweep(*s, in, rows, pe::gate::dtype::f64);
    const auto whole = pe::run_op<double>(g.op, *s, in);
    for (std::int64_t t = 0; t < 3; ++t) {
      const auto part = pe::run_op_tokens<double>(g.op, *s, pe::token_range(in, t, 1), pe::call_seq_len(in.pos));
      ASSERT_EQ(part.size(), whole.size()) << g.op;
      for (std::size_t o = 0; o < whole.size(); ++o) {
        const std::size_t per_token = whole[o].value.data.size() / 3;
        ASSERT_EQ(part[o].value.data.size(), per_token) << g.op << " " << whole[o].name;
        for (std::size_t e = 0; e < per_token; ++e)
          EXPECT_EQ(part[o].value.data[e], whole[o].value.data[static_cast<std::size_t>(t) * per_token + e]) << g.op << " " << whole[o].name << " token " << t;
      }
    }
    ++swept;
  }
  EXPECT_EQ(swept, 5) << "encode, rotate, rotate_grad, rotate_qk and apply_tables are swept";
}

}  // namespace
