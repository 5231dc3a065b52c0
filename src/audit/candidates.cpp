// The diagnosis's table of conventions (see candidates.hpp). Each entry says what it applies to by the spec's parameters and
// the op, never by the scheme's name.
#include "audit/candidates.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "pe/float_format.hpp"
#include "pe/op_chunks.hpp"
#include "pe/op_schema.hpp"
#include "pe/scheme.hpp"
#include "pe/schemes/rope.hpp"

namespace pe::audit {
namespace {

using json = nlohmann::ordered_json;

// s with parameter `key` set to v (or removed when v is null), re-parsed: nullopt when the result is not a valid spec.
std::optional<spec> with(const spec& s, const std::string& key, const json& v) {
  json j = s.json();
  if (v.is_null()) j.erase(key);
  else j[key] = v;
  try {
    return parse_spec_json(j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}
// s with its nested scheme parameter `nested` changed the same way.
std::optional<spec> with_nested(const spec& s, const std::string& nested, const std::string& key, const json& v) {
  json j = s.json();
  if (v.is_null()) j[nested].erase(key);
  else j[nested][key] = v;
  try {
    return parse_spec_json(j);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

const param_info* param(const spec& s, const std::string& name) {
  for (const auto& p : s.info().params)
    if (p.name == name) return &p;
  return nullptr;
}

// A variant that is another spec, and one that is the asked spec read another way (its label: the spec with its words).
variant of_spec(std::string name, std::string words, const spec& s) {
  return variant{std::move(name), s.text(), std::move(words), s, {}, {}, {}, {}, {}};
}
variant of_transform(std::string name, std::string words, const spec& asked) {
  std::string label = fmt::format("{} with {}", asked.text(), words);
  return variant{std::move(name), std::move(label), std::move(words), asked, {}, {}, {}, {}, {}};
}

// A parameter's value in words: the scheme's own (param_info::value_words), else "name value".
std::string value_in_words(const param_info& p, const std::string& value) {
  const auto& keys = p.kind == param_kind::boolean ? std::vector<std::string>{"false", "true"} : p.choices;
  for (std::size_t k = 0; k < keys.size() && k < p.value_words.size(); ++k)
    if (keys[k] == value) return p.value_words[k];
  return fmt::format("{} {}", p.name, value);
}
std::string exchanged_words(const param_info& p, const std::string& now, const std::string& asked) {
  return fmt::format("{} instead of {}", value_in_words(p, now), value_in_words(p, asked));
}

// Parameters: every other value of each choice, each boolean flipped (nested schemes' too), two
// list parameters of one length exchanged, and the base at its common values.
void add_parameter_variants(const spec& s, std::vector<variant>& out) {
  const auto visit = [&](const spec& at, const std::string& nested) {
    for (const auto& p : at.info().params) {
      if (!at.has(p.name)) continue;
      const auto set = [&](const json& v) { return nested.empty() ? with(s, p.name, v) : with_nested(s, nested, p.name, v); };
      const std::string prefix = nested.empty() ? "" : nested + ".";
      if (p.kind == param_kind::choice)
        for (const auto& c : p.choices)
          if (c != at.choice(p.name))
            if (auto v = set(c)) out.push_back(of_spec(fmt::format("{}{}={}", prefix, p.name, c), exchanged_words(p, c, at.choice(p.name)), *v));
      if (p.kind == param_kind::boolean) {
        const std::string now = at.boolean(p.name) ? "false" : "true", asked = at.boolean(p.name) ? "true" : "false";
        if (auto v = set(!at.boolean(p.name))) out.push_back(of_spec(fmt::format("{}{}={}", prefix, p.name, now), exchanged_words(p, now, asked), *v));
      }
    }
  };
  visit(s, "");
  for (const auto& p : s.info().params)
    if (p.kind == param_kind::scheme && s.has(p.name)) visit(s.nested(p.name), p.name);
  // Two lists of one length exchanged (kerple's r1 and r2).
  const auto& ps = s.info().params;
  for (std::size_t a = 0; a < ps.size(); ++a)
    for (std::size_t b = a + 1; b < ps.size(); ++b)
      if (ps[a].kind == param_kind::real_list && ps[b].kind == param_kind::real_list && s.has(ps[a].name) && s.has(ps[b].name) &&
          s.reals(ps[a].name).size() == s.reals(ps[b].name).size() && s.reals(ps[a].name) != s.reals(ps[b].name)) {
        json j = s.json();
        std::swap(j[ps[a].name], j[ps[b].name]);
        try {
          out.push_back(of_spec(fmt::format("{}<->{}", ps[a].name, ps[b].name), fmt::format("{} and {} exchanged", ps[a].name, ps[b].name),
                                parse_spec_json(j)));
        } catch (const std::exception&) {
        }
      }
  // The base: the values models ship, 10000 above all (a converter that drops the config's base).
  if (const auto* p = param(s, "base"); p && s.has("base"))
    for (const double base : {10000.0, 500000.0, 1000000.0, 100000.0, 50000.0})
      if (base != s.real("base"))
        if (auto v = with(s, "base", base))
          out.push_back(of_spec(fmt::format("base={:g}", base), fmt::format("base {} instead of {}", base, s.real("base")), *v));
}

// Positions read another way: each variant maps a call's positions (for ops that take them).
void add_position_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  if (!takes_input(op, s, "pos")) return;
  using map = std::function<std::int64_t(std::int64_t p, std::int64_t first, std::int64_t t)>;
  const auto add = [&](std::string name, std::string words, map f) {
    variant v = of_transform(std::move(name), std::move(words), s);
    v.inputs = [f](const op_inputs& in) {
      op_inputs o = in;
      const std::int64_t first = in.pos.empty() ? 0 : in.pos[0];
      for (std::size_t k = 0; k < o.pos.size(); ++k) o.pos[k] = f(in.pos[k], first, static_cast<std::int64_t>(k) / in.pos_axes);
      return o;
    };
    out.push_back(std::move(v));
  };
  add("positions+1", "positions shifted by +1", [](std::int64_t p, std::int64_t, std::int64_t) { return p + 1; });
  add("positions-1", "positions shifted by -1 (0 kept)", [](std::int64_t p, std::int64_t, std::int64_t) { return std::max<std::int64_t>(p - 1, 0); });
  add("positions negated", "the sign of sin flipped (positions negated: turning the other way)",
      [](std::int64_t p, std::int64_t, std::int64_t) { return -p; });
  add("positions minus first", "positions counted from the call's first (a cache offset ignored)",
      [](std::int64_t p, std::int64_t first, std::int64_t) { return p - first; });
  add("first+t", "positions read as the call's first plus 0..T-1", [](std::int64_t, std::int64_t first, std::int64_t t) { return first + t; });
  add("0..T-1", "positions read as 0..T-1 (the position ids ignored)", [](std::int64_t, std::int64_t, std::int64_t t) { return t; });
  for (const auto* f : {&bfloat16, &binary16})
    add(fmt::format("positions in {}", f->name), fmt::format("positions rounded to {}", f->name), [f](std::int64_t p, std::int64_t, std::int64_t) {
      // Past the format's range the position is infinite, which no int64 holds (converting inf is
      // undefined behaviour: UBSan's float-cast-overflow found it at 65536 in f16); the largest
      // finite value stands in for it, still a candidate that differs from the true position.
      const double r = round_to_format(static_cast<double>(p), *f);
      const double v = std::isfinite(r) ? r : std::copysign(largest_finite(*f), r);
      // bf16 rounds positions near 2^63 up to 2^63, one past int64's range.
      return v >= 0x1p63 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(v);
    });
  for (int k = 10; k <= 16; ++k) {
    const std::int64_t cap = (std::int64_t{1} << k) - 1;
    add(fmt::format("positions capped at {}", cap), fmt::format("positions capped at {} (a cache too short)", cap),
        [cap](std::int64_t p, std::int64_t, std::int64_t) { return std::min(p, cap); });
  }
}

// A rotary spec's own rotation with the angle, or cos and sin, formed another way: binary64
// arithmetic around the rounding the variant names (a model of the kernel, not an exact value).
struct angle_model {
  std::function<double(double p, std::size_t k, double omega)> angle;  // the angle of pair k at position p
  std::function<double(double)> trig_rounding;                         // applied to cos and sin (empty: none)
  bool one_output_sign = false;  // y_a = x_a cos + x_b sin (the first output's sin sign flipped)
};
tensor<double> rotate_with(const spec& s, const op_inputs& in, const angle_model& m) {
  const auto plan = rotation_plan_of(s, call_seq_len(in.pos));
  const double factor = plan.freq.attention_factor<double>();
  const std::int64_t tokens = in.x.shape.at(0), heads = in.x.shape.at(1), dim = in.x.shape.at(2);
  tensor<double> y = in.x;
  for (std::int64_t t = 0; t < tokens; ++t)
    for (std::size_t k = 0; k < plan.pairs.size(); ++k) {
      const auto& pr = plan.pairs[k];
      const double p = static_cast<double>(in.pos[static_cast<std::size_t>(t * in.pos_axes + pr.axis)]);
      const double angle = m.angle(p, k, plan.freq.omega<double>(static_cast<int>(k)));
      double c = std::cos(angle), sn = std::sin(angle);
      if (m.trig_rounding) c = m.trig_rounding(c), sn = m.trig_rounding(sn);
      for (std::int64_t h = 0; h < heads; ++h) {
        const auto a = static_cast<std::size_t>((t * heads + h) * dim + pr.a), b = static_cast<std::size_t>((t * heads + h) * dim + pr.b);
        const double xa = in.x.data[a], xb = in.x.data[b];
        y.data[a] = factor * (xa * c + (m.one_output_sign ? xb : -xb) * sn), y.data[b] = factor * (xb * c + xa * sn);
      }
    }
  return y;
}

// Models of a rotary kernel's arithmetic: angles or cos and sin rounded, angles from iterated
// binary32 products, the sign of sin flipped in one output.
void add_rotary_models(const spec& s, std::vector<variant>& out) {
  if (!is_rotary(s) || rotates_by_role(s)) return;
  const auto model = [&](std::string name, std::string words, angle_model m) {
    variant v = of_transform(std::move(name), std::move(words), s);
    const spec asked = s;
    v.compute = [asked, m](const op_inputs& in) { return rotate_with(asked, in, m); };
    out.push_back(std::move(v));
  };
  const auto direct = [](double p, std::size_t, double omega) { return p * omega; };
  for (const auto* f : {&bfloat16, &binary16}) {
    model(fmt::format("angles in {}", f->name), fmt::format("angles p*w rounded to {}", f->name),
          {[f](double p, std::size_t, double omega) { return round_to_format(p * omega, *f); }, {}});
    model(fmt::format("cos/sin in {}", f->name), fmt::format("cos and sin rounded to {}", f->name),
          {direct, [f](double v) { return round_to_format(v, *f); }});
  }
  // Angles from iterated binary32 products w_(k+1) = w_k * theta_scale, theta_scale = base^(-2/n)
  // with n the rotary dim or the head dim (a kernel that takes the head dim for the ratio).
  if (s.has("base") && s.has("rotary_dim") && s.has("dim"))
    for (const auto& [name, n] : {std::pair{std::string("rotary dim"), s.integer("rotary_dim")}, std::pair{std::string("head dim"), s.integer("dim")}}) {
      if (name == "head dim" && n == s.integer("rotary_dim")) continue;
      const float theta_scale = std::pow(static_cast<float>(s.real("base")), -2.0f / static_cast<float>(n));
      model(fmt::format("iterated products over the {}", name), fmt::format("angles from iterated f32 products of base^(-2/{}) (the {})", n, name),
            {[theta_scale](double p, std::size_t k, double) {
               float w = 1, angle = 0;
               for (std::size_t i = 0; i <= k; ++i) angle = static_cast<float>(p) * w, w *= theta_scale;
               return static_cast<double>(angle);
             },
             {}});
    }
  {
    angle_model flipped{direct, {}};
    flipped.one_output_sign = true;
    model("sin sign in one output", "sin's sign flipped in the first output of each pair only", flipped);
  }
}

// Rotary variants that are specs or transforms: frequencies rounded or with another denominator,
// the window, the attention factor.
void add_rotary_variants(const spec& s, std::vector<variant>& out) {
  if (!is_rotary(s) || rotates_by_role(s)) return;
  const auto plan = rotation_plan_of(s, std::nullopt);
  // Frequencies rounded to bf16 or fp16, or with the head dim as the exponent's denominator: as
  // explicit freqs (the scaling's own are those the plan gives; its attention factor kept).
  if (param(s, "freqs") && !plan.pairs.empty()) {
    const double factor = plan.freq.attention_factor<double>();
    const auto freqs_variant = [&](std::string name, std::string words, std::vector<double> freqs) {
      json j = s.json();
      j.erase("scaling");
      j["freqs"] = freqs;
      try {
        variant v = of_spec(std::move(name), std::move(words), parse_spec_json(j));
        if (factor != 1) {
          v.label += fmt::format(" times the attention factor {:g}", factor);
          v.outputs = [factor](const op_inputs&, tensor<double>& y) {
            for (auto& e : y.data) e *= factor;  // every dim: pass-through ones are checked by their own candidate
          };
        }
        out.push_back(std::move(v));
      } catch (const std::exception&) {
      }
    };
    for (const auto* f : {&bfloat16, &binary16}) {
      std::vector<double> rounded;
      for (std::size_t k = 0; k < plan.pairs.size(); ++k) rounded.push_back(round_to_format(plan.freq.omega<double>(static_cast<int>(k)), *f));
      freqs_variant(fmt::format("inv_freq in {}", f->name), fmt::format("inv_freq rounded to {}", f->name), rounded);
    }
    // A scaling that blends interpolated and original frequencies with a weight w per pair
    // (omega = plain (w / factor + 1 - w)): its two ends swapped (interpolated pairs kept, kept
    // pairs interpolated, the blend between left), and the weight read at index 2k (a ramp over dims).
    const auto* law = std::get_if<rope_frequencies>(&plan.freq.law);
    if (law && law->scaling && law->scaling->has("factor")) {
      const double f = law->scaling->real("factor");
      std::vector<double> swapped, doubled;
      bool blends = true;
      for (std::size_t k = 0; k < plan.pairs.size() && blends; ++k) {
        const auto w = law->interpolation_weight<double>(static_cast<int>(k));
        const auto w2 = law->interpolation_weight<double>(static_cast<int>(2 * k));
        blends = w.has_value();
        if (!blends) break;
        const double plain = law->omega_unscaled<double>(static_cast<int>(k));
        const double ends_swapped = *w >= 1 ? 0 : *w <= 0 ? 1 : *w;
        const double at_2k = w2 ? std::clamp(*w2, 0.0, 1.0) : 1.0;  // past the last pair the ramp has ended: interpolated
        swapped.push_back(plain * (ends_swapped / f + 1 - ends_swapped));
        doubled.push_back(plain * (at_2k / f + 1 - at_2k));
      }
      if (blends) {
        const std::string& scaling = law->scaling->scheme();
        freqs_variant("scaling bands swapped", fmt::format("{}'s bands swapped (interpolated and kept frequencies exchanged)", scaling), swapped);
        freqs_variant("scaling weight at 2k", fmt::format("{}'s ramp weight read at dim index 2i instead of pair index i", scaling), doubled);
      }
    }
    if (s.has("rotary_dim") && s.integer("rotary_dim") < s.integer("dim") && s.has("base") && !s.has("scaling")) {
      std::vector<double> head;
      for (std::size_t k = 0; k < plan.pairs.size(); ++k)
        head.push_back(std::pow(s.real("base"), -2.0 * static_cast<double>(k) / static_cast<double>(s.integer("dim"))));
      freqs_variant("denominator head dim",
                    fmt::format("the head dim {} as frequency denominator, not the rotary dim {}", s.integer("dim"), s.integer("rotary_dim")), head);
    }
  }
  // The rotary window: every dim rotated, or the window at the end of the head (the first dims
  // passed through): the spec as asked on the head's dims read last rotary_dim first, so that its
  // bound is the spec's own on those dims (the pass-through's exact copy elsewhere).
  if (s.has("rotary_dim") && s.integer("rotary_dim") < s.integer("dim")) {
    const std::int64_t rotary = s.integer("rotary_dim"), dim = s.integer("dim");
    if (auto v = with(s, "rotary_dim", dim))
      out.push_back(of_spec("rotary_dim=dim", fmt::format("all {} dims rotated, not the first {} (partial rotary ignored)", dim, rotary), *v));
    variant v = of_transform("rotary window at the end",
                             fmt::format("the rotary window at the head's end (dims {}..{}), not its start", dim - rotary, dim - 1), s);
    for (std::int64_t d = 0; d < dim; ++d) v.dims.push_back((d + dim - rotary) % dim);
    out.push_back(std::move(v));
  }
  // The attention factor: missing, applied twice, or applied to the pass-through dims too.
  const double factor = plan.freq.attention_factor<double>();
  if (factor != 1) {
    std::vector<bool> rotated(static_cast<std::size_t>(plan.dim), false);
    for (const auto& pr : plan.pairs) rotated[pr.a] = rotated[pr.b] = true;
    const auto scale = [&](std::string name, std::string words, double on_rotated, double on_rest) {
      variant v = of_transform(std::move(name), std::move(words), s);
      v.outputs = [rotated, on_rotated, on_rest](const op_inputs&, tensor<double>& y) {
        const std::size_t dim = rotated.size();
        for (std::size_t e = 0; e < y.data.size(); ++e) y.data[e] *= rotated[e % dim] ? on_rotated : on_rest;
      };
      out.push_back(std::move(v));
    };
    scale("attention factor missing", fmt::format("the attention factor {:g} missing", factor), 1 / factor, 1);
    scale("attention factor twice", fmt::format("the attention factor {:g} applied twice", factor), factor, 1);
    if (std::find(rotated.begin(), rotated.end(), false) != rotated.end())
      scale("attention factor on pass-through", fmt::format("the attention factor {:g} on the pass-through dims too", factor), 1, factor);
  }
}

// Nested scaling: removed; its original_max taken as the extended length; its long factors replaced by the short.
void add_scaling_variants(const spec& s, std::vector<variant>& out) {
  for (const auto& p : s.info().params) {
    if (p.kind != param_kind::scheme || !s.has(p.name)) continue;
    const spec& inner = s.nested(p.name);
    if (auto v = with(s, p.name, nullptr)) out.push_back(of_spec(fmt::format("no {}", p.name), fmt::format("the {} {} not applied", inner.scheme(), p.name), *v));
    if (inner.has("original_max") && inner.has("factor")) {
      const auto extended = static_cast<std::int64_t>(static_cast<double>(inner.integer("original_max")) * inner.real("factor"));
      if (auto v = with_nested(s, p.name, "original_max", extended))
        out.push_back(of_spec(fmt::format("{}.original_max x factor", p.name),
                              fmt::format("{}'s original_max read as {} (times its factor), not {}", inner.scheme(), extended, inner.integer("original_max")), *v));
    }
    if (inner.has("short_factor") && inner.has("long_factor") && inner.reals("short_factor") != inner.reals("long_factor"))
      if (auto v = with_nested(s, p.name, "long_factor", inner.reals("short_factor")))
        out.push_back(of_spec(fmt::format("{}.short factors always", p.name), fmt::format("{}'s short factors at every length (the long ones never used)", inner.scheme()), *v));
  }
}

// The call's length read one more or one less (a switch at >= instead of >), where it matters.
void add_length_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  if (!splits_by_token(op) || !reads_call_length(s)) return;  // run_op_tokens takes the length
  // Scaled at every length, as after a call of twice original_max (a state a long call left behind).
  for (const auto& p : s.info().params)
    if (p.kind == param_kind::scheme && s.has(p.name) && s.nested(p.name).has("original_max")) {
      const std::int64_t original = s.nested(p.name).integer("original_max");
      variant v = of_transform("scaled at every length", fmt::format("scaled at every length, as after a call of {} tokens", 2 * original), s);
      v.seq_len = [original](std::int64_t n) { return n <= original ? 2 * original : n; };
      out.push_back(std::move(v));
    }
  for (const int d : {1, -1}) {
    variant v = of_transform(fmt::format("call length{:+d}", d), fmt::format("the call's length read as one {} (a switch at the wrong length)", d > 0 ? "more" : "less"), s);
    v.seq_len = [d](std::int64_t n) { return n + d; };
    out.push_back(std::move(v));
  }
}

// An input transform: the inputs `fields` rounded to format f (the rest as given).
std::function<op_inputs(const op_inputs&)> rounding(const float_format& f, std::vector<tensor<double> op_inputs::*> fields) {
  return [&f, fields](const op_inputs& in) {
    op_inputs o = in;
    for (const auto field : fields)
      for (auto& v : (o.*field).data) v = round_to_format(v, f);
    return o;
  };
}

// x and the role read another way.
void add_input_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  if (!takes_x_rows(op, s)) return;
  variant head0 = of_transform("x of head 0", "head 0's x rotated for every head (a head stride of 0)", s);
  head0.inputs = [](const op_inputs& in) {
    op_inputs o = in;
    const std::int64_t tokens = in.x.shape.at(0), heads = in.x.shape.at(1), dim = in.x.shape.at(2);
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t h = 1; h < heads; ++h)
        for (std::int64_t d = 0; d < dim; ++d) o.x.data[static_cast<std::size_t>((t * heads + h) * dim + d)] = in.x.data[static_cast<std::size_t>(t * heads * dim + d)];
    return o;
  };
  out.push_back(std::move(head0));
  // The vectors read narrower than the I/O dtype (an f16 K cache under f32 compute): as asked
  // where the I/O dtype is that format already, so the diagnosis never prefers it there.
  for (const auto* f : {&binary16, &bfloat16}) {
    variant narrow = of_transform(fmt::format("x in {}", f->name), fmt::format("x (q and k) read rounded to {}", f->name), s);
    narrow.inputs = rounding(*f, {&op_inputs::x, &op_inputs::k});
    // The whole turn in a tensor of that format (ggml's rope on an f16 cache): y stored narrow too.
    variant in_format = of_transform(fmt::format("x and y in {}", f->name), fmt::format("x (q and k) turned in {} tensors, read and stored at {}", f->name, f->name), s);
    in_format.inputs = narrow.inputs;
    in_format.outputs = [f](const op_inputs&, tensor<double>& y) {
      for (auto& v : y.data) v = round_to_format(v, *f);
    };
    out.push_back(std::move(narrow));
    out.push_back(std::move(in_format));
  }
  if (rotates_by_role(s)) {
    variant swapped = of_transform("roles swapped", "queries scaled as keys and keys as queries", s);
    swapped.inputs = [](const op_inputs& in) {
      op_inputs o = in;
      o.role = in.role == 0 ? 1 : 0;
      return o;
    };
    out.push_back(std::move(swapped));
  }
}

// A bias that is a per-head slope times the distance (the reference's bias at distance 2 twice that
// at distance 1, for every head): the slopes of the power-of-two formula 2^(-8(h+1)/n) at n = the
// head count (what a kernel gets by using it for any count) and at n = the next power of two.
void add_slope_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  if (op != "bias" || !s.has("heads") || param(s, "heads")->kind != param_kind::integer) return;
  std::vector<double> slopes;
  try {
    const auto at_distance = [&](std::int64_t d) {
      op_inputs in;
      in.qpos = {d}, in.kpos = {0};
      return run_op<double>("bias", s, in).at(0).value.data;  // [H, 1, 1]
    };
    const auto one = at_distance(1), two = at_distance(2);
    for (std::size_t h = 0; h < one.size(); ++h) {
      if (one[h] == 0 || two[h] != 2 * one[h]) return;
      slopes.push_back(-one[h]);
    }
  } catch (const std::exception&) {
    return;
  }
  const auto heads = static_cast<double>(slopes.size());
  const double next = std::exp2(std::ceil(std::log2(heads)));
  for (const auto& [name, n, words] : {std::tuple{std::string("slopes 2^(-8(h+1)/heads)"), heads, std::string("at the head count")},
                                       std::tuple{std::string("slopes of the next power of two"), next, std::string("of the next power of two")}}) {
    std::vector<double> ratio;
    bool differs = false;
    for (std::size_t h = 0; h < slopes.size(); ++h) {
      ratio.push_back(std::exp2(-8.0 * static_cast<double>(h + 1) / n) / slopes[h]);
      differs = differs || ratio.back() != 1;
    }
    if (!differs) continue;
    variant v = of_transform(name, fmt::format("the slopes 2^(-8(h+1)/{:g}) for every head ({})", n, words), s);
    v.outputs = [ratio](const op_inputs&, tensor<double>& y) {
      const std::size_t per_head = y.data.size() / ratio.size();
      for (std::size_t e = 0; e < y.data.size(); ++e) y.data[e] *= ratio[e / per_head];
    };
    out.push_back(std::move(v));
  }
}

// T5-style log buckets (parameters buckets, max_distance, bidirectional) whose last bucket is not
// clamped: past it, exact + floor(k ln(n / exact) / ln(max_distance / exact)) keeps growing (long
// double, as a kernel would compute it; the reference decides the clamped ones exactly).
void add_bucket_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  if (op != "bucket" || !s.has("buckets") || !s.has("max_distance") || !s.has("bidirectional")) return;
  const std::int64_t buckets = s.integer("buckets"), max_distance = s.integer("max_distance");
  const bool bidirectional = s.boolean("bidirectional");
  variant v = of_transform("last bucket not clamped", "the last bucket not clamped (buckets keep growing past max_distance)", s);
  v.outputs = [=](const op_inputs& in, tensor<double>& y) {
    const std::int64_t per_sign = bidirectional ? buckets / 2 : buckets, exact = per_sign / 2, k = per_sign - exact;
    for (std::size_t e = 0; e < in.rel.size(); ++e) {
      const std::int64_t rel = in.rel[e], offset = bidirectional && rel > 0 ? per_sign : 0;
      if (y.data[e] != static_cast<double>(offset + per_sign - 1)) continue;  // not the clamped last bucket
      const long double n = bidirectional ? std::abs(static_cast<long double>(rel)) : (rel < 0 ? -static_cast<long double>(rel) : 0);
      if (n < exact) continue;
      const auto m = static_cast<std::int64_t>(std::floor(static_cast<long double>(k) * std::log(n / exact) / std::log(static_cast<long double>(max_distance) / exact)));
      y.data[e] = static_cast<double>(offset + exact + std::max<std::int64_t>(m, k - 1));
    }
  };
  out.push_back(std::move(v));
}

}  // namespace

namespace {

// A backward pass (its schema names the forward op): the forward op computed in its place, as a
// kernel whose conjugate or transpose flag is never read computes it, and no gradient at all.
void add_backward_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  const op_schema* o = find_op_schema(op);
  if (!o || o->adjoint_of.empty()) return;
  const std::string forward(o->adjoint_of);
  variant turned = of_transform("forward, not transposed", fmt::format("{} (the forward pass) instead of its transpose", forward), s);
  turned.compute = [s, forward](const op_inputs& in) { return run_op<double>(forward, s, in).at(0).value; };
  out.push_back(std::move(turned));
  variant none = of_transform("no gradient", "zeros instead of a gradient (no backward pass)", s);
  none.compute = [](const op_inputs& in) {
    tensor<double> zero(in.x.shape);
    std::fill(zero.data.begin(), zero.data.end(), 0.0);
    return zero;
  };
  out.push_back(std::move(none));
}

// A kernel handed cos and sin tables (apply_tables) that reads them wrong: every token reading the
// tables' row of its head's index (a stride by head, not token), and sin read where cos belongs in
// the first output of each pair (y_a = s x_a - s x_b).
void add_table_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  if (!takes_input(op, s, "cos") || !takes_input(op, s, "sin") || !is_rotary(s)) return;
  variant by_head = of_transform("tables by head", "the tables' row h read for head h of every token (a stride by head)", s);
  by_head.compute = [s, op](const op_inputs& in) {
    const std::int64_t tokens = in.x.shape.at(0), heads = in.x.shape.at(1), dim = in.x.shape.at(2), width = in.cos.shape.at(1);
    tensor<double> y(in.x.shape);
    for (std::int64_t h = 0; h < heads; ++h) {
      op_inputs one = in;  // head h alone, every token reading row h mod T of the tables
      one.x = tensor<double>({tokens, 1, dim});
      const std::int64_t row = h % tokens;
      for (std::int64_t t = 0; t < tokens; ++t) {
        std::copy_n(in.x.data.begin() + (t * heads + h) * dim, dim, one.x.data.begin() + t * dim);
        std::copy_n(in.cos.data.begin() + row * width, width, one.cos.data.begin() + t * width);
        std::copy_n(in.sin.data.begin() + row * width, width, one.sin.data.begin() + t * width);
      }
      const auto part = run_op<double>(op, s, one).at(0).value;
      for (std::int64_t t = 0; t < tokens; ++t) std::copy_n(part.data.begin() + t * dim, dim, y.data.begin() + (t * heads + h) * dim);
    }
    return y;
  };
  out.push_back(std::move(by_head));
  variant sin_twice = of_transform("sin for cos in the first output", "sin read where cos belongs in each pair's first output", s);
  sin_twice.compute = [s, op](const op_inputs& in) {
    tensor<double> y = run_op<double>(op, s, in).at(0).value;
    const auto pairs = rotation_plan_of(s, std::nullopt).pairs;
    const std::int64_t tokens = in.x.shape.at(0), heads = in.x.shape.at(1), dim = in.x.shape.at(2), width = in.cos.shape.at(1);
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t k = 0; k < width; ++k) {
          const auto& pr = pairs[static_cast<std::size_t>(k)];
          const double sn = in.sin.data[static_cast<std::size_t>(t * width + k)];
          const auto a = static_cast<std::size_t>((t * heads + h) * dim + pr.a), b = static_cast<std::size_t>((t * heads + h) * dim + pr.b);
          y.data[a] = sn * in.x.data[a] - sn * in.x.data[b];
        }
    return y;
  };
  out.push_back(std::move(sin_twice));
  // The tables read at another row (position ids off by one into a cache: token t reads row t + 1,
  // the last row kept; or row t - 1, the first kept), and read narrower than handed (a cache
  // exported at half precision).
  for (const int shift : {1, -1}) {
    variant moved = of_transform(fmt::format("tables a row {}", shift > 0 ? "late" : "early"),
                                 fmt::format("each token's tables read from the {} token's row", shift > 0 ? "next" : "previous"), s);
    moved.inputs = [shift](const op_inputs& in) {
      op_inputs o = in;
      const std::int64_t tokens = in.cos.shape.at(0), width = in.cos.shape.at(1);
      for (std::int64_t t = 0; t < tokens; ++t) {
        const std::int64_t row = std::clamp<std::int64_t>(t + shift, 0, tokens - 1);
        std::copy_n(in.cos.data.begin() + row * width, width, o.cos.data.begin() + t * width);
        std::copy_n(in.sin.data.begin() + row * width, width, o.sin.data.begin() + t * width);
      }
      return o;
    };
    out.push_back(std::move(moved));
  }
  for (const auto* f : {&binary16, &bfloat16}) {
    variant narrow = of_transform(fmt::format("tables in {}", f->name), fmt::format("the cos and sin tables read rounded to {}", f->name), s);
    narrow.inputs = rounding(*f, {&op_inputs::cos, &op_inputs::sin});
    out.push_back(std::move(narrow));
  }
}

// rotate_qk's queries and keys (q held in x, k in k) wired wrong, as fused kernels have shipped
// them: q's second element of each pair computed from k's values (ColossalAI's fused_rotary_emb
// computed two of its four outputs from the other tensor), k indexed with q's head count (its
// elements past k's end read as 0), and each key head turned from the next one's values (a grouped-
// query head mapping off by one).
void add_qk_variants(const spec& s, const std::string& op, std::vector<variant>& out) {
  if (!takes_input(op, s, "q") || !takes_input(op, s, "k") || !is_rotary(s)) return;
  // rotate_qk on in with k's values replaced by `keys` [T, Hk, D] (q unchanged).
  const auto with_keys = [s, op](const op_inputs& in, const std::function<double(std::int64_t t, std::int64_t h, std::int64_t d)>& key) {
    op_inputs other = in;
    const std::int64_t tokens = in.k.shape.at(0), heads = in.k.shape.at(1), dim = in.k.shape.at(2);
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t d = 0; d < dim; ++d) other.k.data[static_cast<std::size_t>((t * heads + h) * dim + d)] = key(t, h, d);
    return concatenated(run_op<double>(op, s, other));
  };
  variant cross = of_transform("q and k cross-wired", "q's second element of each pair computed from k's values", s);
  cross.compute = [s, op](const op_inputs& in) {
    const std::int64_t tokens = in.x.shape.at(0), hq = in.x.shape.at(1), dim = in.x.shape.at(2), hk = in.k.shape.at(1);
    auto outputs = run_op<double>(op, s, in);
    op_inputs from_k = in;  // q's heads filled with their key head's values (h mod Hk), turned as q
    for (std::int64_t t = 0; t < tokens; ++t)
      for (std::int64_t h = 0; h < hq; ++h)
        std::copy_n(in.k.data.begin() + (t * hk + h % hk) * dim, dim, from_k.x.data.begin() + (t * hq + h) * dim);
    const auto crossed = run_op<double>(op, s, from_k).at(0).value;
    auto& q_out = outputs.at(0).value;
    for (const auto& pr : rotation_plan_of(s, std::nullopt).pairs)
      for (std::int64_t row = 0; row < tokens * hq; ++row) q_out.data[static_cast<std::size_t>(row * dim + pr.b)] = crossed.data[static_cast<std::size_t>(row * dim + pr.b)];
    return concatenated(std::move(outputs));
  };
  out.push_back(std::move(cross));
  variant q_heads = of_transform("k with q's head count", "k read as if it had q's head count", s);
  q_heads.compute = [with_keys](const op_inputs& in) {
    const std::int64_t hq = in.x.shape.at(1), dim = in.k.shape.at(2);
    return with_keys(in, [&](std::int64_t t, std::int64_t h, std::int64_t d) {
      const std::int64_t e = (t * hq + h) * dim + d;
      return e < static_cast<std::int64_t>(in.k.data.size()) ? in.k.data[static_cast<std::size_t>(e)] : 0.0;
    });
  };
  out.push_back(std::move(q_heads));
  variant shifted = of_transform("key heads off by one", "key head h turned from key head h + 1's values", s);
  shifted.compute = [with_keys](const op_inputs& in) {
    const std::int64_t hk = in.k.shape.at(1), dim = in.k.shape.at(2);
    return with_keys(in, [&](std::int64_t t, std::int64_t h, std::int64_t d) {
      return in.k.data[static_cast<std::size_t>((t * hk + (h + 1) % hk) * dim + d)];
    });
  };
  out.push_back(std::move(shifted));
}

}  // namespace

std::vector<variant> neighbourhood(const spec& s, const std::string& op) {
  std::vector<variant> out{of_spec("as asked", "what was asked", s)};
  // The rotary transforms and models below compute the forward turn from positions: a backward
  // pass, or a kernel handed its tables, gets the specs and inputs read another way (the
  // reference's own op runs those), and its own variants.
  const op_schema* o = find_op_schema(op);
  // The rotary models compute one output from x: an op with more (rotate_qk) gets its own variants.
  const bool forward = (!o || o->adjoint_of.empty()) && takes_input(op, s, "pos") && outputs_of(op, s).size() == 1;
  // A backward pass that turns forward is also "positions negated": named first, as what it is.
  add_backward_variants(s, op, out);
  add_parameter_variants(s, out);
  add_position_variants(s, op, out);
  if (forward) add_rotary_variants(s, out);
  add_scaling_variants(s, out);
  add_length_variants(s, op, out);
  add_input_variants(s, op, out);
  add_table_variants(s, op, out);
  add_qk_variants(s, op, out);
  add_slope_variants(s, op, out);
  add_bucket_variants(s, op, out);
  if (forward) add_rotary_models(s, out);
  return out;
}

tensor<double> concatenated(std::vector<named_tensor<double>> outputs) {
  if (outputs.size() == 1) return std::move(outputs[0].value);
  tensor<double> all;
  for (const auto& o : outputs) all.data.insert(all.data.end(), o.value.data.begin(), o.value.data.end());
  all.shape = {static_cast<std::int64_t>(all.data.size())};
  return all;
}

namespace {

// in with x's last axis read in the order `dims` (variant::dims), and where each of the outputs'
// elements then lies in the implementation's: x is [T, H, D], and so is the output.
std::pair<op_inputs, std::vector<std::size_t>> reordered(const op_inputs& in, const std::vector<std::int64_t>& dims) {
  const std::int64_t dim = in.x.shape.at(2), rows = in.x.shape.at(0) * in.x.shape.at(1);
  if (static_cast<std::int64_t>(dims.size()) != dim) throw std::invalid_argument("the variant's dims are not x's");
  op_inputs o = in;
  std::vector<std::size_t> at(in.x.data.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t d = 0; d < dim; ++d) {
      at[static_cast<std::size_t>(r * dim + d)] = static_cast<std::size_t>(r * dim + dims[static_cast<std::size_t>(d)]);
      o.x.data[static_cast<std::size_t>(r * dim + d)] = in.x.data[at[static_cast<std::size_t>(r * dim + d)]];
    }
  return {std::move(o), std::move(at)};
}

}  // namespace

expected expected_output(const variant& v, const std::string& op, const op_inputs& in) {
  auto [given, at] = v.dims.empty() ? std::pair{in, std::vector<std::size_t>{}} : reordered(in, v.dims);
  expected e{v.inputs ? v.inputs(given) : given, {}, std::move(at)};
  e.output = v.compute   ? v.compute(e.read)
             : v.seq_len ? concatenated(run_op_tokens<double>(op, v.s, e.read, v.seq_len(call_seq_len(e.read.pos))))
                         : concatenated(run_op<double>(op, v.s, e.read));
  if (v.outputs) v.outputs(in, e.output);
  return e;
}

}  // namespace pe::audit
