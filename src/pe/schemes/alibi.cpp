// ALiBi's slope exponents and registry entry.
#include "pe/schemes/alibi.hpp"

#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {

std::vector<std::pair<std::int64_t, std::int64_t>> alibi_slope_exponents(std::int64_t heads) {
  std::int64_t m = 1;
  while (m * 2 <= heads) m *= 2;  // the closest power of two not above heads
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  for (std::int64_t h = 1; h <= m; ++h) out.emplace_back(-8 * h, m);
  // 2m heads have slopes 2^(-8k/(2m)) = 2^(-4k/m), k = 1 .. 2m; every other one from k = 1.
  for (std::int64_t j = 0; j < heads - m; ++j) out.emplace_back(-4 * (2 * j + 1), m);
  return out;
}

namespace {

scheme_info alibi_info() {
  const param_info causal = boolean_param("causal", "true: -slope (i - j) (decoders); false: -slope |i - j|", true,
                                          "a bias -slope |i - j|", "a bias -slope (i - j)");
  return {"alibi", "encoding",
                 "ALiBi: bias -slope_h (i - j) on the scores; slopes 2^(-8h/n) for n a power of two, the paper's "
                 "interleaving otherwise (12 heads: 2^-1..2^-8, 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5)",
                 {integer_param("heads", "attention heads n", std::nullopt, 1, 4096), causal},
                 {"bias", "attend"},
                 {}};
}

scheme_behaviour alibi_behaviour() {
  scheme_behaviour b = bias_scheme(
      []<class T>(const spec& s, std::span<const std::int64_t> q, std::span<const std::int64_t> k) { return alibi_bias<T>(s, q, k); });
  b.causal_only = [](const spec& s) {
    return s.boolean("causal") ? std::optional<std::string>("alibi(causal=true) is the decoder form; set \"causal\": true in the input, or use alibi(causal=false)")
                               : std::nullopt;
  };
  return b;
}

const scheme_registration alibi_registered{10, alibi_info(), alibi_behaviour()};

}  // namespace

}  // namespace pe
