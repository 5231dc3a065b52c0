// Scheme registration with its checks, and the behaviour queries every layer uses instead of names.
#include "pe/scheme.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/op_schema.hpp"

namespace pe {
namespace {

// Whether the hooks that serve `op` are there, or the reason one is missing ("" when present).
std::string missing_hook(const scheme_behaviour& b, const std::string& op) {
  const op_schema* o = find_op_schema(op);
  if (!o) return fmt::format("op '{}' is not an op pecheck knows", op);
  return o->needs ? o->needs(b) : "";
}

// The hook a kind cannot do without ("" when present).
std::string missing_kind_hook(const scheme_behaviour& b) {
  switch (b.kind) {
    case scheme_kind::plain: return "";
    case scheme_kind::absolute: return b.encode ? "" : "an absolute scheme needs an encode hook";
    case scheme_kind::rotary: return b.rotation_plan ? "" : "a rotary scheme needs a rotation_plan hook";
    case scheme_kind::input_side: return b.input_side ? "" : "an input-side scheme needs an input_side hook";
    case scheme_kind::bias: return b.bias ? "" : "a bias scheme needs a bias hook";
    case scheme_kind::score_terms: return b.score_terms ? "" : "a score-terms scheme needs a score_terms hook";
  }
  return "unknown kind";
}

}  // namespace

const char* kind_name(scheme_kind k) {
  switch (k) {
    case scheme_kind::plain: return "plain";
    case scheme_kind::absolute: return "absolute";
    case scheme_kind::rotary: return "rotary";
    case scheme_kind::input_side: return "input_side";
    case scheme_kind::bias: return "bias";
    case scheme_kind::score_terms: return "score_terms";
  }
  return "?";
}

scheme_registration::scheme_registration(int order, scheme_info info, scheme_behaviour behaviour) {
  std::string why = missing_kind_hook(behaviour);
  for (const auto& op : info.ops)
    if (why.empty()) why = missing_hook(behaviour, op);
  for (const auto& [op, reason] : behaviour.gate_gaps) {
    if (why.empty() && std::find(info.ops.begin(), info.ops.end(), op) == info.ops.end()) {
      why = fmt::format("gate gap for op '{}', which the scheme does not list", op);
    }
    if (why.empty() && reason.empty()) why = fmt::format("gate gap for op '{}' gives no reason", op);
  }
  if (!why.empty()) throw std::logic_error(fmt::format("scheme '{}' ({}): {}", info.name, kind_name(behaviour.kind), why));
  info.behaviour = std::make_shared<const scheme_behaviour>(std::move(behaviour));
  register_scheme(std::move(info), order);
}

nested_scheme_registration::nested_scheme_registration(int order, std::vector<scheme_info> infos) {
  for (auto& info : infos) register_scheme(std::move(info), order++);
}

const scheme_behaviour& behaviour_of(const spec& s) {
  if (!s.info().behaviour) throw spec_error(fmt::format("{}: a {} scheme has no ops of its own", s.scheme(), s.info().family));
  return *s.info().behaviour;
}

std::int64_t position_axes(const spec& s) {
  const auto& b = behaviour_of(s);
  return b.position_axes ? b.position_axes(s) : 1;
}

std::optional<std::int64_t> head_dim(const spec& s) {
  const auto& b = behaviour_of(s);
  if (b.head_dim) return b.head_dim(s);
  return std::nullopt;
}

std::optional<std::int64_t> required_heads(const spec& s) {
  const auto& b = behaviour_of(s);
  if (b.heads) return b.heads(s);
  return std::nullopt;
}

std::optional<std::int64_t> position_limit(const spec& s) {
  const auto& b = behaviour_of(s);
  if (b.position_limit) return b.position_limit(s);
  return std::nullopt;
}

bool reads_call_length(const spec& s) {
  const auto& b = behaviour_of(s);
  return b.reads_call_length && b.reads_call_length(s);
}

std::vector<std::int64_t> boundary_positions(const spec& s) {
  const auto& b = behaviour_of(s);
  return b.boundary_positions ? b.boundary_positions(s) : std::vector<std::int64_t>{};
}

bool needs_causal_mask(const spec& s) {
  const auto& b = behaviour_of(s);
  return b.causal_only && b.causal_only(s).has_value();
}

rotary_plan rotation_plan_of(const spec& s, std::optional<std::int64_t> seq_len) {
  const auto& b = behaviour_of(s);
  if (!b.rotation_plan) throw spec_error(fmt::format("{}: not a rotary scheme (it has no rotation plan)", s.scheme()));
  return b.rotation_plan(s, seq_len);
}

bool rotates_by_role(const spec& s) { return is_rotary(s) && rotation_plan_of(s, std::nullopt).magnitude.has_value(); }

}  // namespace pe
