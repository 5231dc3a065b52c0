// The reference's run of each op (its descriptor's `run`), and run_op, which finds the descriptor;
// the one instantiation for each scalar (keeps MPFR's templates out of other translation units).
#include "pe/ops.hpp"

#include <limits>

#include "pe/op_reference.hpp"
#include "pe/op_schema.hpp"

namespace pe {
namespace {

// The plan of a rotary op at seq_len (nothing: the scheme's own, without a call), positions
// checked to have the columns the scheme reads.
rotary_plan checked_plan(const spec& s, const op_inputs& in, std::optional<std::int64_t> seq_len) {
  if (!in.pos.empty() && in.pos_axes != position_axes(s)) {
    throw input_error(fmt::format("{}: positions have {} columns; this scheme reads {}", s.scheme(), in.pos_axes, position_axes(s)));
  }
  return rotation_plan_of(s, seq_len);
}

}  // namespace

namespace reference_runs {

run encode() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t) { return single_output<T>("pe", pe::encode<T>(s, in.pos)); });
}

run inv_freq() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t) { return plan_inv_freq<T>(checked_plan(s, in, std::nullopt)); });
}

run rotate() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t seq_len) {
    return single_output<T>("y", rotate_pairs<T>(checked_plan(s, in, seq_len), in.x, in.pos, role_of(in)));
  });
}

// dx = J^T dy. The rotation turns pair k by the angle p omega_k, linear in p, so R_p^T = R_(-p);
// xPos's scale zeta^(+-p/scale_base) is symmetric and unchanged by the transpose, and the scale at p
// for one role is the scale at -p for the other. So dx is rotate's exact output at the negated
// positions with the role swapped, its frequencies those of the call's own length (seq_len).
run rotate_grad() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t seq_len) {
    std::vector<std::int64_t> negated(in.pos.size());
    std::transform(in.pos.begin(), in.pos.end(), negated.begin(), [](std::int64_t p) {
      // -2^63 has no negation in int64 (rotate takes it; its transpose would turn by +2^63).
      if (p == std::numeric_limits<std::int64_t>::min()) throw input_error("rotate_grad: position -2^63 is outside the positions it takes, |p| <= 2^63 - 1");
      return -p;
    });
    auto role = role_of(in);
    if (role) role = *role == rotation_role::query ? rotation_role::key : rotation_role::query;
    return single_output<T>("dx", rotate_pairs<T>(checked_plan(s, in, seq_len), in.x, negated, role));
  });
}

// q and k turned alike at each token's positions, as rotate turns x; xPos scales q as queries and
// k as keys. Each head is turned by its token's angles alone, so grouped-query attention (Hq a
// multiple of Hk) changes nothing in the result: the reference checks only that the shapes are a
// GQA call's.
run rotate_qk() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t seq_len) {
    const rotary_plan plan = checked_plan(s, in, seq_len);
    if (in.x.shape.size() != 3 || in.k.shape.size() != 3) throw input_error("rotate_qk: q and k must be [T, H, D]");
    const std::int64_t hq = in.x.shape[1], hk = in.k.shape[1];
    if (in.k.shape[0] != in.x.shape[0]) throw input_error(fmt::format("rotate_qk: q has {} tokens, k {}", in.x.shape[0], in.k.shape[0]));
    if (in.k.shape[2] != in.x.shape[2]) throw input_error(fmt::format("rotate_qk: q's head dim is {}, k's {}", in.x.shape[2], in.k.shape[2]));
    if (hk < 1 || hq % hk != 0) throw input_error(fmt::format("rotate_qk: q's {} heads are not a multiple of k's {} (grouped-query attention shares each key head among a group of query heads)", hq, hk));
    const bool by_role = static_cast<bool>(plan.magnitude);
    std::vector<named_tensor<T>> out;
    out.push_back({"q_out", rotate_pairs<T>(plan, in.x, in.pos, by_role ? std::optional(rotation_role::query) : std::nullopt)});
    out.push_back({"k_out", rotate_pairs<T>(plan, in.k, in.pos, by_role ? std::optional(rotation_role::key) : std::nullopt)});
    return out;
  });
}

// The plan gives only the pairs (which dims each table column turns): the angles are the tables'.
run apply_tables() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t) {
    return single_output<T>("y", apply_rotation_tables<T>(rotation_plan_of(s, std::nullopt), in.x, in.cos, in.sin));
  });
}

run matrix() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t seq_len) {
    const rotary_plan plan = checked_plan(s, in, seq_len);
    if (static_cast<std::int64_t>(in.pos.size()) != in.pos_axes) {
      throw input_error(fmt::format("{}: op 'matrix' takes one position, not {}", s.scheme(), in.pos.size() / in.pos_axes));
    }
    return single_output<T>("R", rotation_matrix<T>(plan, in.pos));
  });
}

run scale() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t) {
    return single_output<T>("scale", behaviour_of(s).scale.template at<T>()(s, in.pos));
  });
}

run bucket() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t) {
    const auto& b = behaviour_of(s);
    tensor<T> out({static_cast<std::int64_t>(in.rel.size())});
    for (size_t k = 0; k < in.rel.size(); ++k) out.data[k] = store_integer<T>(b.bucket(s, in.rel[k]));
    return single_output<T>("bucket", std::move(out));
  });
}

run bias() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t) {
    return single_output<T>("bias", behaviour_of(s).bias.template at<T>()(s, in.qpos, in.kpos));
  });
}

run attend() {
  return run::of([]<class T>(const spec& s, const op_inputs& in, std::int64_t) -> std::vector<named_tensor<T>> {
    // attend computes in MPFR: it is instantiated for binary64, binary32 and MPFR outputs.
    if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, mp_real>) {
      return single_output<T>("out", pe::attend<T>(s, in.attend));
    } else {
      throw spec_error(fmt::format("op 'attend' stores f64, f32 or MPFR outputs, not {}", scalar_name<T>()));
    }
  });
}

}  // namespace reference_runs

std::pair<tensor<double>, tensor<double>> angle_tables(const spec& s, const op_inputs& in) {
  const rotary_plan plan = checked_plan(s, in, call_seq_len(in.pos));
  const std::int64_t tokens = static_cast<std::int64_t>(in.pos.size()) / in.pos_axes, width = static_cast<std::int64_t>(plan.pairs.size());
  std::pair<tensor<double>, tensor<double>> out{tensor<double>({tokens, width}), tensor<double>({tokens, width})};
  // RN(sin) and RN(cos) of each pair's angle, as rotation_matrix forms R_p's entries (without its D x D matrix).
  const phase_table<double> phases(plan.freq, static_cast<int>(width));
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::int64_t k = 0; k < width; ++k) {
      const auto& pr = plan.pairs[static_cast<std::size_t>(k)];
      const auto [sn, cs] = phases.sin_cos(in.pos[static_cast<std::size_t>(t * in.pos_axes + pr.axis)], static_cast<int>(k));
      out.first.data[static_cast<std::size_t>(t * width + k)] = cs;
      out.second.data[static_cast<std::size_t>(t * width + k)] = sn;
    }
  return out;
}

template <class T>
std::vector<named_tensor<T>> run_op_tokens(std::string_view op, const spec& s, const op_inputs& part, std::int64_t seq_len) {
  const auto& ops = s.info().ops;
  const op_schema* o = find_op_schema(op);
  if (!o || std::find(ops.begin(), ops.end(), op) == ops.end()) {
    throw spec_error(fmt::format("{}: op '{}' is not supported (ops: {})", s.scheme(), op, fmt::join(ops, ", ")));
  }
  return o->run.at<T>()(s, part, seq_len);
}

template <class T>
std::vector<named_tensor<T>> run_op(std::string_view op, const spec& s, const op_inputs& in) {
  return run_op_tokens<T>(op, s, in, call_seq_len(in.pos));
}

#define PE_INSTANTIATE_RUN_OP(T)                                                                  \
  template std::vector<named_tensor<T>> run_op<T>(std::string_view, const spec&, const op_inputs&); \
  template std::vector<named_tensor<T>> run_op_tokens<T>(std::string_view, const spec&, const op_inputs&, std::int64_t);
PE_INSTANTIATE_RUN_OP(double)
PE_INSTANTIATE_RUN_OP(float)
PE_INSTANTIATE_RUN_OP(bf16)
PE_INSTANTIATE_RUN_OP(fp16)
PE_INSTANTIATE_RUN_OP(mp_real)
#undef PE_INSTANTIATE_RUN_OP

}  // namespace pe
