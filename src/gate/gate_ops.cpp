// The gate's op table (see gate_ops.hpp): each op's draw (op_draws.cpp) and bound (tolerance.cpp).
#include "gate/gate_ops.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "gate/op_draws.hpp"

namespace pe::gate {

const std::vector<gate_op>& gate_op_table() {
  static const std::vector<gate_op> table = {
      {.op = "encode", .draw = draws::encode, .bounds = bounds::encode, .probe = probes::positions, .sweep = sweeps::positions},
      {.op = "inv_freq", .draw = draws::none, .bounds = bounds::inv_freq, .unfixed_length = "inv_freq, with no positions,"},
      {.op = "rotate", .draw = draws::rotate, .bounds = bounds::rotate, .leads = true, .probe = probes::rotate, .sweep = sweeps::rotate},
      // rotate's backward pass holds dy where rotate holds x: the same draw, bound and probe.
      {.op = "rotate_grad", .draw = draws::rotate, .bounds = bounds::rotate, .probe = probes::rotate, .sweep = sweeps::rotate},
      // q and k drawn as rotate's x, with fewer key heads (grouped-query attention) and other values.
      {.op = "rotate_qk", .draw = draws::rotate_qk, .bounds = bounds::rotate_qk, .probe = probes::rotate_qk, .sweep = sweeps::rotate_qk},
      // Tables of the spec's exact angles at rotate's drawn positions; the bound is the application's.
      {.op = "apply_tables", .draw = draws::apply_tables, .bounds = bounds::apply_tables, .probe = probes::apply_tables, .sweep = sweeps::apply_tables},
      {.op = "scale", .draw = draws::scale, .bounds = bounds::relative, .probe = probes::positions},
      {.op = "bucket", .draw = draws::bucket, .bounds = bounds::relative, .probe = probes::bucket},
      {.op = "bias", .draw = draws::bias, .bounds = bounds::bias, .probe = probes::bias},
      {.op = "attend", .draw = draws::attend, .bounds = bounds::attend, .unfixed_length = "attend, rotating queries and keys of different lengths,"},
  };
  return table;
}

const gate_op& gate_op_of(std::string_view op) {
  for (const auto& g : gate_op_table())
    if (g.op == op) return g;
  throw std::logic_error(fmt::format("the gate has no entry for op '{}' (gate_ops.cpp)", op));
}

}  // namespace pe::gate
