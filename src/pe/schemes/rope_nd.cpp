// Registry entries of rope_nd and mrope, with their checks.
#include "pe/schemes/rope_nd.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

// A list of counts: each a non-negative (or positive, even) integer.
void check_counts(const char* where, const char* key, const real_list& xs, bool positive_even) {
  for (const double x : xs) {
    if (x != std::trunc(x) || x < 0 || x > static_cast<double>(max_dim)) {
      throw spec_error(fmt::format("{}: {} has {}, which is not a count in 0..{}", where, key, x, max_dim));
    }
    if (positive_even && (x < 2 || static_cast<std::int64_t>(x) % 2)) {
      throw spec_error(fmt::format("{}: {} has {}; each axis needs an even number of dims >= 2", where, key, x));
    }
  }
}

std::vector<scheme_info> infos() {
  std::vector<scheme_info> out;
  const auto base = real_param("base", "frequency base", 10000.0,
                               [](double b) { return b > 1 ? std::string() : std::string("must be > 1"); });
  param_info axes{"axes", param_kind::real_list, "dims per position axis [d_0, d_1, ...]; the head dim is their sum"};
  out.push_back({"rope_nd", "encoding",
                 "axial RoPE: axis a rotates its own block of d_a dims by its own position column, omega = "
                 "base^(-2i/d_a) within the block (Flux EmbedND: gptj pairs); positions are [T, len(axes)]",
                 {axes, base,
                  choice_param("layout", "pairing within each axis block: gptj (2i, 2i+1), Flux; neox (i, i + d_a/2)",
                               "gptj", {"gptj", "neox"}, {"GPT-J's interleaved pairs", "NeoX's rotate-half pairs"})},
                 {"inv_freq", "rotate", "rotate_grad", "rotate_qk", "apply_tables", "matrix", "attend"},
                 [](const spec& s) {
                   const auto& a = s.reals("axes");
                   if (a.empty()) throw spec_error("rope_nd: axes is empty; give at least one axis, e.g. [16, 56, 56]");
                   check_counts("rope_nd", "axes", a, true);
                   double total = 0;
                   for (double d : a) total += d;
                   if (total > static_cast<double>(max_dim)) throw spec_error(fmt::format("rope_nd: axes sum to {}, more than {}", total, max_dim));
                 }});
  param_info sections{"sections", param_kind::real_list, "pairs per position row [t, h, w], summing to dim/2"};
  const param_info interleaved = boolean_param("interleaved", "false: contiguous sections (Qwen2-VL); true: h and w interleaved every third pair (Qwen3-VL)",
                                               false, "contiguous t/h/w sections", "interleaved h/w sections");
  out.push_back({"mrope", "encoding",
                 "multimodal RoPE: plain frequencies, each pair reading the t, h or w position; "
                 "positions are [T, 3]; equal t/h/w positions give plain rope",
                 {integer_param("dim", "head dimension D (even)", std::nullopt, 2, max_dim), sections, base, interleaved,
                  choice_param("layout", "pairing: neox (j, j + D/2), Qwen2-VL and Qwen3-VL; gptj (2j, 2j+1), GLM-4.1V", "neox", {"neox", "gptj"},
                               {"NeoX's rotate-half pairs", "GPT-J's interleaved pairs"})},
                 {"inv_freq", "rotate", "rotate_grad", "rotate_qk", "apply_tables", "matrix", "attend"},
                 [](const spec& s) {
                   const std::int64_t dim = s.integer("dim");
                   if (dim % 2) throw spec_error(fmt::format("mrope: dim={} is odd; rotation pairs need an even dim", dim));
                   const auto& sec = s.reals("sections");
                   if (sec.size() != 3) throw spec_error(fmt::format("mrope: sections has {} values; it needs [t, h, w]", sec.size()));
                   check_counts("mrope", "sections", sec, false);
                   if (sec[0] + sec[1] + sec[2] != static_cast<double>(dim / 2)) {
                     throw spec_error(fmt::format("mrope: sections sum to {}; dim={} needs {} pairs",
                                                  sec[0] + sec[1] + sec[2], dim, dim / 2));
                   }
                 }});
  return out;
}

scheme_behaviour rope_nd_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::rotary;
  b.position_axes = [](const spec& s) { return static_cast<std::int64_t>(s.reals("axes").size()); };
  b.head_dim = [](const spec& s) { return rope_nd_plan(s).dim; };
  b.rotation_plan = [](const spec& s, std::optional<std::int64_t>) { return as_rotary(rope_nd_plan(s)); };
  return b;
}

scheme_behaviour mrope_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::rotary;
  b.position_axes = [](const spec&) { return std::int64_t{3}; };
  b.head_dim = [](const spec& s) { return s.integer("dim"); };
  b.rotation_plan = [](const spec& s, std::optional<std::int64_t>) { return as_rotary(mrope_plan(s)); };
  return b;
}

const std::vector<scheme_registration> rope_nd_registered = [] {
  auto all = infos();
  std::vector<scheme_registration> out;
  out.emplace_back(20, std::move(all.at(0)), rope_nd_behaviour());
  out.emplace_back(21, std::move(all.at(1)), mrope_behaviour());
  return out;
}();

}  // namespace

}  // namespace pe
