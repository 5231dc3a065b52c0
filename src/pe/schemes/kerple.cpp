// KERPLE's registry entry: parameters per head, the bias hook, and a correct kernel's rounding for the gate.
#include "pe/schemes/kerple.hpp"

#include <cmath>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

param_info per_head(const char* name, const char* doc) { return {name, param_kind::real_list, doc}; }

scheme_info kerple_info() {
  param_info heads = integer_param("heads", "attention heads H", std::nullopt, 1, 4096);
  return {"kerple", "encoding",
          "KERPLE (Chi et al. 2022): bias -r1_h ln(1 + r2_h |i - j|) (variant=log) or -r1_h |i - j|^r2_h (variant=power, "
          "0 < r2 <= 2) on the scores, r1 and r2 one value per head (trained in the paper; given here)",
          {heads,
           choice_param("variant", "log: -r1 ln(1 + r2 |i - j|); power: -r1 |i - j|^r2", "log", {"log", "power"},
                        {"the log kernel", "the power kernel"}),
           per_head("r1", "the kernels' scale per head, each > 0 (H values)"),
           per_head("r2", "per head, each > 0: the log kernel's distance factor, or the power kernel's exponent (<= 2)")},
          {"bias", "attend"},
          [](const spec& s) {
            const auto heads = static_cast<std::size_t>(s.integer("heads"));
            for (const char* key : {"r1", "r2"}) {
              const auto& v = s.reals(key);
              if (v.size() != heads) throw spec_error(fmt::format("kerple: {} has {} values; heads={} needs one per head", key, v.size(), heads));
              for (const double x : v)
                if (!(x > 0) || !std::isfinite(x)) throw spec_error(fmt::format("kerple: {} has {}, which is not a finite value > 0", key, x));
            }
            // The power kernel is conditionally positive definite only for r2 <= 2 (the paper; the
            // reference code clamps it there).
            if (s.choice("variant") == "power")
              for (const double x : s.reals("r2"))
                if (x > 2) throw spec_error(fmt::format("kerple: variant=power has r2={}; the power kernel needs 0 < r2 <= 2", x));
          }};
}

scheme_behaviour kerple_behaviour() {
  scheme_behaviour b = bias_scheme(
      []<class T>(const spec& s, std::span<const std::int64_t> q, std::span<const std::int64_t> k) { return kerple_bias<T>(s, q, k); });
  // A correct kernel's error beyond a few roundings of the result (proofs/gate_tolerance.md, bias):
  // log: r2 d rounds (d, r2 and the product: 3u) before 1 + r2 d rounds (u), and the logarithm
  // turns those relative errors of its argument into absolute ones: r1 4u (the naive log(1 + x)
  // of the paper's code, not log1p). power: d and r2 round, so d^r2 is off relatively by
  // r2 u + r2 |ln d| u (an exponent off by r2 u) and pow's own 2u.
  b.bias_error = [](const spec& s, std::int64_t head, double distance, double bias, double u) {
    const double r1 = s.reals("r1")[static_cast<std::size_t>(head)], r2 = s.reals("r2")[static_cast<std::size_t>(head)];
    if (s.choice("variant") == "log") return 4.1 * u * r1;
    return std::abs(bias) * u * (r2 * (1 + std::abs(std::log(std::max(distance, 1.0)))) + 2);
  };
  return b;
}

const scheme_registration kerple_registered{20, kerple_info(), kerple_behaviour()};

}  // namespace
}  // namespace pe
