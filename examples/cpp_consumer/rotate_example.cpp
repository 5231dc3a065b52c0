// Rotates one vector with pecheck's RoPE reference at binary64 and at 256 bits (MPFR) and prints both.
#include <fmt/format.h>

#include <pe/ops.hpp>

int main() {
  const pe::spec s = pe::parse_spec("rope(dim=4, base=10000)");  // angles 3*1 and 3*0.01 at position 3
  pe::op_inputs in;
  in.pos = {3};
  in.x = pe::tensor<double>({1, 1, 4});  // x[tokens, heads, dim]
  in.x.data = {1, 0, 0, 1};
  // run_op returns the op's named outputs; rotate has one, y.
  const auto y64 = pe::run_op<double>("rotate", s, in);
  // 15 significant digits: each is right for a result within a few ulps of the exact one.
  fmt::print("{}\nbinary64:", s.text());
  for (const double v : y64.front().value.data) fmt::print(" {:.15g}", v);
  const pe::mp_precision bits(256);  // MPFR results at 256 bits while `bits` lives
  const auto y256 = pe::run_op<pe::mp_real>("rotate", s, in);
  fmt::print("\n256 bits:");
  for (const auto& v : y256.front().value.data) fmt::print(" {}", pe::to_decimal(v));
  fmt::print("\n");
}
