// A scheme's behaviour: its kind, its shapes and the hooks every op, the attention, the laws and the gate call.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "pe/half.hpp"
#include "pe/mp.hpp"
#include "pe/registry.hpp"
#include "pe/schemes/rope.hpp"
#include "pe/schemes/rope_nd.hpp"
#include "pe/schemes/sinusoidal.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

struct attend_inputs;
namespace detail {
struct projected;
}

// How a scheme enters attention (the order `pecheck list` groups them in):
// - absolute: its vectors encode(pos) are added to x before the projections;
// - plain: not at all (none); q, k, v are taken as they are;
// - rotary: q and k are rotated by a rotation plan (the RoPE family);
// - input_side: q and k are transformed by the scheme's own hook before the scores (Llama 4's
//   query temperature);
// - bias: a [H, T, S] bias is added to the scaled scores (ALiBi, T5);
// - score_terms: its own terms change the scores and values (Shaw, Transformer-XL, DeBERTa).
enum class scheme_kind { absolute, plain, rotary, input_side, bias, score_terms };
const char* kind_name(scheme_kind k);

// Hooks a scheme implements once, generically over the scalar type, and every caller uses
// at binary64, binary32, bf16, fp16 or MPFR: one std::function per scalar.
template <template <class> class Sig>
class typed_hook {
 public:
  typed_hook() = default;
  // fn is a generic lambda []<class T>(args...) { ... }, instantiated here for every scalar.
  template <class Fn>
  static typed_hook of(Fn fn) {
    typed_hook h;
    h.set<double>(fn), h.set<float>(fn), h.set<bf16>(fn), h.set<fp16>(fn), h.set<mp_real>(fn);
    return h;
  }
  template <class T>
  const std::function<Sig<T>>& at() const {
    return std::get<std::function<Sig<T>>>(fns_);
  }
  explicit operator bool() const { return static_cast<bool>(std::get<0>(fns_)); }

 private:
  template <class T, class Fn>
  void set(const Fn& fn) {
    std::get<std::function<Sig<T>>>(fns_) = [fn](auto&&... a) { return fn.template operator()<T>(std::forward<decltype(a)>(a)...); };
  }
  std::tuple<std::function<Sig<double>>, std::function<Sig<float>>, std::function<Sig<bf16>>, std::function<Sig<fp16>>,
             std::function<Sig<mp_real>>>
      fns_;
};

// encode: positions [T] -> [T, dim]; bias: query and key positions -> [H, T, S].
template <class T>
using encode_signature = tensor<T>(const spec&, std::span<const std::int64_t>);
template <class T>
using bias_signature = tensor<T>(const spec&, std::span<const std::int64_t>, std::span<const std::int64_t>);

// The frequency law of a rotation plan: RoPE's (every scaling; mrope uses it too) or the axial one.
struct plan_frequencies {
  std::variant<rope_frequencies, axial_frequencies> law;
  std::string cache_key() const {
    return std::visit([](const auto& f) { return f.cache_key(); }, law);
  }
  template <class U>
  U omega(int k) const {
    return std::visit([k](const auto& f) { return f.template omega<U>(k); }, law);
  }
  // The factor rotate multiplies by (YaRN's and LongRoPE's attention factor; 1 otherwise).
  template <class U>
  U attention_factor() const {
    if (const auto* f = std::get_if<rope_frequencies>(&law)) return f->template attention_factor<U>();
    return U(1);
  }
};
using rotary_plan = rotation_plan<plan_frequencies>;
template <class Freq>
rotary_plan as_rotary(rotation_plan<Freq> p) {
  return {p.dim, p.axes, std::move(p.pairs), plan_frequencies{std::move(p.freq)}, std::move(p.blocks), p.magnitude};
}

// An encoding whose components are sin or cos of p * omega_i (sinusoidal): the frequency law
// and, per component j, its pair i.
struct encode_phases {
  sinusoidal_frequencies freq;
  std::vector<int> pair_of_component;
};

// What a score-terms scheme does to attention for one call: scores become
// q.k / sqrt(divisor * d) + bias, and where rows are given, q.rel_key[row(i, j)] joins q.k
// and rel_value[row(i, j)] joins v_j (Shaw).
struct score_adjustment {
  tensor<mp_real> bias;  // [H, T, S], added to the scaled scores; empty for none
  std::int64_t divisor = 1;
  std::vector<double> rel_key, rel_value;  // [rows, d] and [rows, dv], row-major; empty for none
  std::function<std::int64_t(std::int64_t i, std::int64_t j)> row;
};

struct scheme_behaviour {
  scheme_kind kind = scheme_kind::plain;
  // Position columns a call gives per token (rope_nd: len(axes), mrope: 3); 1 when unset.
  std::function<std::int64_t(const spec&)> position_axes;
  // What attend's inputs must have when the spec fixes it: the head dim of q and k, the head
  // count, and whether v's head dim must equal the head dim (Shaw adds a^V to v).
  std::function<std::int64_t(const spec&)> head_dim, heads;
  bool value_dim_is_head_dim = false;
  // Positions below this (a learned table's rows, normalized's length); unlimited when unset.
  std::function<std::int64_t(const spec&)> position_limit;
  // Whether the spec's frequencies read the call's length (dynamic NTK, LongRoPE without seq_len).
  std::function<bool(const spec&)> reads_call_length;
  // Positions where the scheme changes behaviour, for test draws (band edges, length switches).
  std::function<std::vector<std::int64_t>(const spec&)> boundary_positions;

  typed_hook<encode_signature> encode;                               // absolute, plain: op encode
  std::function<std::optional<encode_phases>(const spec&)> phases;   // encode as sin/cos of p omega
  typed_hook<encode_signature> scale;  // op scale: positions [T] -> a factor per position [T]
  // input_side: q [T, H, D] at positions pos (query = true), or k at its positions, as attend
  // uses them, in MPFR at the precision in force.
  std::function<tensor<mp_real>(const spec&, const tensor<double>& x, std::span<const std::int64_t> pos, bool query)> input_side;
  typed_hook<bias_signature> bias;                                   // bias: op bias, attend's bias
  // The stored weights a bias looks its entries up in (T5's [buckets, heads]); the gate hands
  // them to implementations as input `table` in the I/O dtype. Unset for computed biases.
  std::function<tensor<double>(const spec&)> bias_table;
  // A correct kernel's error in a bias entry beyond C u |bias| (a few roundings of the result),
  // absolute, for head h at distance |i - j| with exact value `bias`, working in unit roundoff
  // u; unset when C u |bias| covers it (ALiBi's slope times distance, a table lookup).
  std::function<double(const spec&, std::int64_t head, double distance, double bias, double u)> bias_error;
  std::function<std::int64_t(const spec&, std::int64_t rel)> bucket;  // op bucket
  // rotary: the plan for a call of the given length (only the length-reading scalings use it).
  std::function<rotary_plan(const spec&, std::optional<std::int64_t> seq_len)> rotation_plan;
  // Whether attend on this spec needs the causal mask, and the message for a call without it
  // (alibi(causal=true) is the decoder form); nullopt when either mask is fine.
  std::function<std::optional<std::string>(const spec&)> causal_only;
  // score_terms: the call's adjustment, and the named unscaled terms the laws read (op score_terms).
  std::function<score_adjustment(const spec&, const attend_inputs&, const detail::projected&)> score_terms;
  std::function<std::vector<named_tensor<mp_real>>(const spec&, const attend_inputs&)> named_score_terms;
  // Whether the scores depend on the keys' positions. Llama 4's temperature scales queries only:
  // a causal query then sees its past as a set, blind to its order (attention.causal_prefix_invariance).
  bool sees_key_positions = true;
  // Ops the gate cannot check yet, each with the reason (the coverage test reads them).
  std::vector<std::pair<std::string, std::string>> gate_gaps;
};

// A bias scheme's behaviour: kind bias, `heads` heads (the spec's parameter), and fn, a generic
// lambda []<class T>(spec, qpos, kpos) -> tensor<T>, as its bias hook.
template <class Fn>
scheme_behaviour bias_scheme(Fn fn) {
  scheme_behaviour b;
  b.kind = scheme_kind::bias;
  b.heads = [](const spec& s) { return s.integer("heads"); };
  b.bias = typed_hook<bias_signature>::of(fn);
  return b;
}

// The behaviour of a registered top-level scheme (std::logic_error for a nested one).
const scheme_behaviour& behaviour_of(const spec& s);
inline scheme_kind kind_of(const spec& s) { return behaviour_of(s).kind; }
inline bool is_absolute(const spec& s) { return kind_of(s) == scheme_kind::absolute; }
inline bool is_rotary(const spec& s) { return kind_of(s) == scheme_kind::rotary; }
std::int64_t position_axes(const spec& s);
// The head dim attend requires of q and k, when the spec fixes it.
std::optional<std::int64_t> head_dim(const spec& s);
std::optional<std::int64_t> required_heads(const spec& s);
std::optional<std::int64_t> position_limit(const spec& s);
bool reads_call_length(const spec& s);
std::vector<std::int64_t> boundary_positions(const spec& s);
bool needs_causal_mask(const spec& s);
// The rotary plan of s for a call of the given length; spec_error when s is not rotary.
rotary_plan rotation_plan_of(const spec& s, std::optional<std::int64_t> seq_len);
// Whether s rotates queries and keys differently (a plan with a magnitude: xPos): op rotate
// then takes a role.
bool rotates_by_role(const spec& s);

// Registers a top-level scheme with its behaviour (each schemes/X.cpp holds one of these at
// namespace scope). `order` places it among the schemes of its kind (register_scheme): tens per
// file, in the order pecheck list shows them, plus one per further scheme of the same file.
// Throws std::logic_error when an op it lists has no hook, or a hook its kind needs is missing:
// an op is never silently served by a fallback.
struct scheme_registration {
  scheme_registration(int order, scheme_info info, scheme_behaviour behaviour);
};
// Registers nested schemes (RoPE's scalings), which have no behaviour of their own, at order,
// order + 1, ... in the order given.
struct nested_scheme_registration {
  nested_scheme_registration(int order, std::vector<scheme_info> infos);
};

}  // namespace pe
