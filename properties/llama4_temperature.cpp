// Laws of Llama 4's attention temperature: exactly 1 below floor_scale, and never falling as the position grows.
#include <fmt/format.h>

#include "properties/law_support.hpp"
#include "properties/property.hpp"
#include "properties/targets.hpp"

namespace pe::props {
namespace {

// floor_scale HF's 8192, an integer in [1, 2^20], or a small one (1..8: the attention laws place
// their few tokens at 0, 1, ..., and only blocks that change among them make the temperature a
// position signal there); attn_scale 0, HF's 0.1, or a multiple of 2^-10 in [0, 1] (the monotone
// law needs a >= 0; the spec check refuses a < 0).
rc::Gen<std::string> gen_llama4_temperature_spec() {
  return rc::gen::exec([] {
    const auto floor_scale = *rc::gen::weightedOneOf<std::int64_t>({{1, rc::gen::just(std::int64_t{8192})},
                                                                    {2, rc::gen::inRange<std::int64_t>(1, (1 << 20) + 1)},
                                                                    {2, rc::gen::inRange<std::int64_t>(1, 9)}}).as("floor_scale");
    const double attn_scale =
        *rc::gen::weightedOneOf<double>({{1, rc::gen::element(0.0, 0.1)}, {2, rc::gen::map(rc::gen::inRange(0, 1025), [](int k) { return k / 1024.0; })}}).as("attn_scale");
    return fmt::format("llama4_temperature(floor_scale={}, attn_scale={})", floor_scale, attn_scale);
  });
}

template <class T>
tensor<T> scale_at(const backend<T>& b, const spec& s, std::vector<std::int64_t> pos) {
  return b.output("scale", s, position_inputs(std::move(pos)), "scale");
}

// tau = 1 exactly at every position p with p + 1 < floor_scale, and tau > 1 at p = floor_scale - 1
// where attn_scale can be resolved (>= 2u). Counts violations.
template <class T>
struct unit_below_floor {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t floor_scale = s.integer("floor_scale");
    RC_PRE(floor_scale - 1 <= b.max_position());
    std::vector<std::int64_t> pos;
    if (floor_scale >= 2) {
      const auto count = *rc::gen::inRange(1, 6).as("count");
      for (int k = 0; k < count; ++k) {
        pos.push_back(*rc::gen::weightedOneOf<std::int64_t>({{1, rc::gen::element<std::int64_t>(0, std::max<std::int64_t>(floor_scale - 3, 0), floor_scale - 2)},
                                                            {2, rc::gen::inRange<std::int64_t>(0, floor_scale - 1)}}).as("position"));
      }
    }
    pos.push_back(floor_scale - 1);
    const auto tau = scale_at(b, s, pos);
    double violations = 0;
    for (std::size_t t = 0; t + 1 < pos.size(); ++t)
      if (!(as_double(tau.data[t]) == 1)) ++violations;
    if (s.real("attn_scale") >= 2 * unit_roundoff<T>() && !(as_double(tau.data.back()) > 1)) ++violations;
    return {violations, 0, 1};
  }
};

// tau(p2) >= tau(p1) for p1 < p2; equal bit for bit within one block floor((p + 1)/F); strictly
// larger across blocks where the exact gap exceeds two roundings. Counts violations.
template <class T>
struct monotone {
  static measure run(const backend<T>& b, const spec& s) {
    const std::int64_t floor_scale = s.integer("floor_scale"), top = std::min<std::int64_t>(b.max_position(), std::int64_t{1} << 40);
    // Block edges k F - 2, k F - 1, k F and the binary32 trouble spots, besides anywhere.
    const auto near_edge = rc::gen::exec([floor_scale, top] {
      const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, std::max<std::int64_t>(top / floor_scale, 1) + 1).as("k");
      return std::clamp<std::int64_t>(k * floor_scale - *rc::gen::inRange<std::int64_t>(0, 3).as("below"), 0, top);
    });
    const auto draw = [&] { return *rc::gen::weightedOneOf<std::int64_t>({{2, near_edge}, {3, gen_position(top)}}).as("position"); };
    auto p1 = draw(), p2 = *rc::gen::weightedOneOf<std::int64_t>({{1, rc::gen::just(p1 + 1)}, {3, rc::gen::exec(draw)}}).as("p2");
    p2 = std::min(p2, top);
    if (p1 > p2) std::swap(p1, p2);
    RC_PRE(p1 < p2);
    const auto tau = scale_at(b, s, {p1, p2});
    const double t1 = as_double(tau.data[0]), t2 = as_double(tau.data[1]);
    const std::int64_t k1 = (p1 + 1) / floor_scale, k2 = (p2 + 1) / floor_scale;
    double violations = 0;
    if (!(t2 >= t1)) ++violations;
    if (k1 == k2 && !(t2 == t1)) ++violations;
    // ln(k2 + 1) - ln(k1 + 1) >= (k2 - k1)/(k2 + 1); half of it keeps g below the exact gap.
    const double g = 0.5 * s.real("attn_scale") * static_cast<double>(k2 - k1) / static_cast<double>(k2 + 1);
    if (k2 > k1 && g > 2 * unit_roundoff<T>() * std::abs(t2) && !(t2 > t1)) ++violations;
    return {violations, 0, 1};
  }
};

}  // namespace

void add_llama4_temperature_properties(std::vector<property>& out) {
  const std::vector<target> targets = {random_specs("llama4_temperature", expectation::holds),
                                       fixed_spec("llama4_temperature(floor_scale=8192, attn_scale=0.1)", expectation::holds)};
  out.push_back(make_property<unit_below_floor>(
      "llama4_temperature.unit_below_floor",
      "the query temperature is exactly 1 while p + 1 < floor_scale and rises at p = floor_scale - 1", law_kind::inequality, targets));
  out.push_back(make_property<monotone>(
      "llama4_temperature.monotone",
      "the query temperature never falls as p grows, is constant on each block of floor_scale positions and rises between blocks",
      law_kind::inequality, targets));
}

namespace {

const family_registration llama4_temperature_registration{66, add_llama4_temperature_properties};
const spec_generator_registration llama4_temperature_generator{"llama4_temperature", [] { return gen_llama4_temperature_spec(); }};

}  // namespace

}  // namespace pe::props
