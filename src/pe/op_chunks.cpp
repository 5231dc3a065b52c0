// Running a split-by-token op on a range of tokens (see op_chunks.hpp).
#include "pe/op_chunks.hpp"

#include "pe/op_schema.hpp"

namespace pe {

bool splits_by_token(std::string_view op) {
  const op_schema* o = find_op_schema(op);
  return o && o->splits_by_token;
}

std::int64_t token_count(const op_inputs& in) {
  return in.pos_axes > 0 ? static_cast<std::int64_t>(in.pos.size()) / in.pos_axes : 0;
}

op_inputs token_range(const op_inputs& in, std::int64_t first, std::int64_t count) {
  // The inputs of encode, rotate and its kin; the others (attend's, bias's) stay empty: those ops do
  // not split.
  op_inputs out;
  out.pos_axes = in.pos_axes;
  out.role = in.role;
  const auto rows = [&](const auto& v, std::int64_t width) {
    return std::vector(v.begin() + first * width, v.begin() + (first + count) * width);
  };
  out.pos = rows(in.pos, in.pos_axes);
  for (const auto member : {&op_inputs::x, &op_inputs::k}) {  // rows [T, H, D]: x (q, dy), and rotate_qk's k
    const tensor<double>& from = in.*member;
    if (from.data.empty()) continue;
    tensor<double>& to = out.*member;
    to.shape = {count, from.shape.at(1), from.shape.at(2)};
    to.data = rows(from.data, from.shape.at(1) * from.shape.at(2));
  }
  for (const auto member : {&op_inputs::cos, &op_inputs::sin}) {  // apply_tables' tables [T, pairs], as audit sweeps them
    const tensor<double>& from = in.*member;
    if (from.data.empty()) continue;
    (out.*member).shape = {count, from.shape.at(1)};
    (out.*member).data = rows(from.data, from.shape.at(1));
  }
  return out;
}

}  // namespace pe
