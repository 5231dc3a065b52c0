// Laws of KERPLE: its bias reads |i - j| only, never rises with distance, and is a conditionally positive definite kernel.
#include <fmt/format.h>

#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// Heads 1..16, both variants, r1 and r2 multiples of 2^-8 in [2^-8, 16] (power: r2 <= 2):
// exact in the spec text, and spanning the trained values (chijames/KERPLE clamps both to >= 0.01).
rc::Gen<std::string> gen_kerple_spec() {
  return rc::gen::exec([] {
    const auto heads = *rc::gen::inRange<std::int64_t>(1, 17).as("heads");
    const bool power = *rc::gen::arbitrary<bool>().as("power");
    std::vector<double> r1, r2;
    for (std::int64_t h = 0; h < heads; ++h) {
      r1.push_back(*rc::gen::inRange(1, 4097) / 256.0);
      r2.push_back(*rc::gen::inRange(1, power ? 513 : 4097) / 256.0);
    }
    return fmt::format("kerple(heads={}, variant={}, r1=[{}], r2=[{}])", heads, power ? "power" : "log", fmt::join(r1, ", "),
                       fmt::join(r2, ", "));
  });
}

// A lower bound on the exact gap bias(d1) - bias(d2) > 0 for d1 < d2, half of one from the
// kernel's derivative (proofs/kerple.monotone_decay.md), in binary64.
double gap_lower_bound(const spec& s, std::int64_t head, double d1, double d2) {
  const double r1 = s.reals("r1")[static_cast<std::size_t>(head)], r2 = s.reals("r2")[static_cast<std::size_t>(head)];
  if (s.choice("variant") == "log") return 0.5 * r1 * r2 * (d2 - d1) / (1 + r2 * d2);
  if (d1 == 0) return 0.5 * r1 * std::pow(d2, r2);
  return 0.5 * r1 * r2 * (d2 - d1) * std::min(std::pow(d1, r2 - 1), std::pow(d2, r2 - 1));
}

// bias(d2) <= bias(d1) for distances d1 < d2, strictly where the exact gap exceeds two roundings,
// and bias(a + d) = bias(a - d). Counts violations (bound 0).
template <class T>
struct monotone_decay {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t top = std::min<std::int64_t>(b.max_position(), std::int64_t{1} << 40);
    const auto a = *gen_position(top).as("a");
    const std::int64_t reach = std::max(a, top - a);  // a + d or a - d stays in [0, top]
    RC_PRE(reach >= 1);
    const auto [d1, d2] = two_distinct_distances(reach);
    const auto key_at = [&](std::int64_t d, bool ahead) {
      const std::int64_t k = ahead ? a + d : a - d;
      return k >= 0 && k <= top ? k : (ahead ? a - d : a + d);
    };
    const bool ahead1 = *rc::gen::arbitrary<bool>().as("ahead1"), ahead2 = *rc::gen::arbitrary<bool>().as("ahead2");
    op_inputs in;
    in.qpos = {a};
    in.kpos = {key_at(d1, ahead1), key_at(d2, ahead2)};
    const std::int64_t mirror = in.kpos[0] == a + d1 ? a - d1 : a + d1;
    const bool mirrored = mirror >= 0 && mirror <= top;
    if (mirrored) in.kpos.push_back(mirror);
    const auto bias = b.output_with_error("bias", s, in, "bias");
    const auto width = static_cast<std::int64_t>(in.kpos.size());
    const double u = unit_roundoff<T>();
    double violations = 0;
    for (std::int64_t h = 0; h < s.integer("heads"); ++h) {
      const auto at = [&](std::int64_t k) { return static_cast<std::size_t>(h * width + k); };
      const double b1 = as_double(bias.value.data[at(0)]), b2 = as_double(bias.value.data[at(1)]);
      const double e1 = bias.error[at(0)], e2 = bias.error[at(1)], wide = std::max(std::abs(b1), std::abs(b2));
      if (!(b2 <= b1 + e1 + e2)) ++violations;  // also counts a NaN
      if (gap_lower_bound(s, h, static_cast<double>(d1), static_cast<double>(d2)) > 2 * u * wide + e1 + e2 && !(b2 < b1)) ++violations;
      if (mirrored) {
        const double b1m = as_double(bias.value.data[at(2)]);
        if (!(std::abs(b1 - b1m) <= 2 * u * std::max(std::abs(b1), std::abs(b1m)) + e1 + bias.error[at(2)])) ++violations;
      }
    }
    return {violations, 0, 1};
  }
};

// For integer weights c summing to 0, sum_ij c_i c_j bias(x_i, x_j) >= 0 on any positions x:
// each head's bias is a conditionally positive definite kernel. Held to the stored entries'
// rounding and the form's own evaluation (proofs/kerple.conditionally_positive_definite.md).
template <class T>
struct conditionally_positive_definite {
  static measure run(const backend<T>& b, const spec& s) {
    const auto n = *rc::gen::inRange<std::int64_t>(2, 9).as("n");
    const auto x = draw_positions(n, std::min<std::int64_t>(b.max_position(), std::int64_t{1} << 40));
    std::vector<std::int64_t> c;
    std::int64_t total = 0;
    for (std::int64_t i = 0; i + 1 < n; ++i) total += c.emplace_back(*rc::gen::inRange<std::int64_t>(-1024, 1025).as("c"));
    c.push_back(-total);
    op_inputs in;
    in.qpos = x, in.kpos = x;
    const auto bias = b.output_with_error("bias", s, in, "bias");
    const double u = unit_roundoff<T>();
    double worst = 0;
    for (std::int64_t h = 0; h < s.integer("heads"); ++h) {
      T form(0);
      double magnitude = 0, carried = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        T inner(0);
        for (std::int64_t j = 0; j < n; ++j) {
          const auto e = static_cast<std::size_t>((h * n + i) * n + j);
          inner += T(static_cast<double>(c[j])) * bias.value.data[e];
          const double weight = std::abs(static_cast<double>(c[i]) * static_cast<double>(c[j]));
          magnitude += weight * std::abs(as_double(bias.value.data[e]));
          carried += weight * bias.error[e];
        }
        form += T(static_cast<double>(c[i])) * inner;
      }
      const double allowance = 1.01 * ((u + gamma(static_cast<double>(2 * n), u)) * magnitude + carried);
      const double q = as_double(form);
      if (std::isnan(q)) return {INFINITY, 1, 1};
      if (q < 0) worst = std::max(worst, allowance > 0 ? -q / allowance : INFINITY);
    }
    return {worst, 1, 1};
  }
};

}  // namespace

void add_kerple_properties(std::vector<property>& out) {
  const std::vector<target> kerple = {random_specs("kerple", expectation::holds)};
  out.push_back(on_implementations(make_property<bias_translation_invariance>(
      "kerple.translation_invariance", "KERPLE's bias depends on |i - j| only: shifting every position leaves it unchanged",
      law_kind::identity, kerple)));
  out.push_back(make_property<monotone_decay>(
      "kerple.monotone_decay", "KERPLE's bias never rises as |i - j| grows, falls wherever two roundings can resolve it, and is symmetric",
      law_kind::inequality, kerple));
  out.push_back(make_property<conditionally_positive_definite>(
      "kerple.conditionally_positive_definite",
      "for weights summing to 0, sum c_i c_j bias(x_i, x_j) >= 0: each head's bias is a conditionally positive definite kernel",
      law_kind::inequality, kerple));
}

namespace {

const family_registration kerple_registration{65, add_kerple_properties};
const spec_generator_registration kerple_generator{"kerple", [] { return gen_kerple_spec(); }};

}  // namespace

}  // namespace pe::props
