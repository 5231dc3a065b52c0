// Running a split-by-token op on a range of tokens (see op_chunks.hpp).
#include "pe/op_chunks.hpp"

#include <algorithm>
#include <array>

namespace pe {

bool splits_by_token(std::string_view op) {
  static constexpr std::array<std::string_view, 2> per_token{"encode", "rotate"};
  return std::find(per_token.begin(), per_token.end(), op) != per_token.end();
}

std::int64_t token_count(const op_inputs& in) {
  return in.pos_axes > 0 ? static_cast<std::int64_t>(in.pos.size()) / in.pos_axes : 0;
}

op_inputs token_range(const op_inputs& in, std::int64_t first, std::int64_t count) {
  // The inputs of encode and rotate; the others (attend's, bias's) stay empty: those ops do not split.
  op_inputs out;
  out.pos_axes = in.pos_axes;
  out.role = in.role;
  const auto rows = [&](const auto& v, std::int64_t width) {
    return std::vector(v.begin() + first * width, v.begin() + (first + count) * width);
  };
  out.pos = rows(in.pos, in.pos_axes);
  if (!in.x.data.empty()) {
    out.x.shape = {count, in.x.shape.at(1), in.x.shape.at(2)};
    out.x.data = rows(in.x.data, in.x.shape.at(1) * in.x.shape.at(2));
  }
  return out;
}

template <class T>
std::vector<named_tensor<T>> run_op_tokens(std::string_view op, const spec& s, const op_inputs& part, std::int64_t seq_len) {
  // rotary_op's rotate with the whole call's length; everything else run_op checks (the op is the
  // scheme's; rotate_pairs checks the positions' columns against x) holds for a part as for the call.
  if (op == "rotate") return {{"y", rotate_pairs<T>(rotation_plan_of(s, seq_len), part.x, part.pos, role_of(part))}};
  return run_op<T>(op, s, part);
}

template std::vector<named_tensor<double>> run_op_tokens<double>(std::string_view, const spec&, const op_inputs&, std::int64_t);
template std::vector<named_tensor<mp_real>> run_op_tokens<mp_real>(std::string_view, const spec&, const op_inputs&, std::int64_t);

}  // namespace pe
