// xPos (Sun et al. 2022, torchscale's XPOS): RoPE whose pairs are also scaled, queries down and keys up with position.
#include <cmath>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

std::string positive_finite(double x) { return x > 0 && std::isfinite(x) ? std::string() : std::string("must be a finite value > 0"); }

scheme_info xpos_info() {
  return {"xpos", "encoding",
          "xPos: RoPE (w_i = base^(-2i/D)) whose pair i is also scaled by zeta_i^(p/scale_base) for queries "
          "(role 0) and zeta_i^(-p/scale_base) for keys (role 1), zeta_i = (2i/D + gamma)/(1 + gamma); positions "
          "as given (torchscale centres them by ceil(N/2), which changes no score)",
          {integer_param("dim", "head dimension D (even)", std::nullopt, 2, max_dim),
           real_param("base", "frequency base", 10000.0, [](double b) { return b > 1 && std::isfinite(b) ? std::string() : std::string("must be > 1"); }),
           real_param("gamma", "zeta's offset (torchscale: 0.4)", 0.4, positive_finite),
           real_param("scale_base", "positions per unit of the scale's exponent (torchscale: 512)", 512.0, positive_finite),
           choice_param("layout", "pairing: gptj (2i, 2i+1), torchscale's rotate_every_two; neox (i, i + D/2)", "gptj",
                        {"gptj", "neox"}, {"GPT-J's interleaved pairs", "NeoX's rotate-half pairs"})},
          {"inv_freq", "rotate", "rotate_grad", "rotate_qk", "attend"},
          [](const spec& s) {
            if (s.integer("dim") % 2) throw spec_error(fmt::format("xpos: dim={} is odd; rotation pairs need an even dim", s.integer("dim")));
          }};
}

// Plain RoPE frequencies on all D dims, plus the magnitude.
rotary_plan xpos_plan(const spec& s) {
  rope_frequencies f;
  f.rotary = s.integer("dim");
  f.base = s.real("base");
  f.exact_base = s.expression("base");  // expressions exact at MPFR precision (pe/exact_number.hpp)
  rotation_plan<rope_frequencies> plan{f.rotary, 1, {}, f, {}};
  add_block(plan, s.choice("layout") == "neox", 0, f.rotary);
  plan.magnitude = pair_magnitude{f.rotary, s.real("gamma"), s.real("scale_base"), s.expression("gamma"), s.expression("scale_base")};
  return as_rotary(std::move(plan));
}

scheme_behaviour xpos_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::rotary;
  b.head_dim = [](const spec& s) { return s.integer("dim"); };
  b.rotation_plan = [](const spec& s, std::optional<std::int64_t>) { return xpos_plan(s); };
  return b;
}

const scheme_registration xpos_registered{30, xpos_info(), xpos_behaviour()};

}  // namespace
}  // namespace pe
