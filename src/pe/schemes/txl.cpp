// Transformer-XL's seeded weights and registry entry.
#include "pe/schemes/txl.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/schemes/absolute.hpp"

namespace pe {

txl_weights make_txl_weights(const spec& s) {
  txl_weights w{s.integer("heads"), s.integer("dim"), s.integer("r_dim"), {}, {}, {}};
  const auto seed = static_cast<std::uint64_t>(s.integer("seed"));
  const double sd = s.real("init_std");
  const std::int64_t width = w.heads * w.dim;
  std::int64_t index = 0;
  for (std::int64_t e = 0; e < w.r_dim * width; ++e) w.w_r.push_back(learned_entry(seed, index++, sd));
  for (std::int64_t e = 0; e < width; ++e) w.u.push_back(learned_entry(seed, index++, sd));
  for (std::int64_t e = 0; e < width; ++e) w.v.push_back(learned_entry(seed, index++, sd));
  return w;
}

void register_txl_schemes(std::vector<scheme_info>& out) {
  out.push_back({"txl", "encoding",
                 "Transformer-XL: score q.k + q.W_R R_(i-j) + u.k + v.W_R R_(i-j), R the [sin | cos] sinusoid of i - j; "
                 "seeded W_R, u, v",
                 {integer_param("heads", "attention heads", std::nullopt, 1, 4096),
                  integer_param("dim", "head dimension of q and k", std::nullopt, 1, 4096),
                  integer_param("r_dim", "dimension of the relative sinusoid R (TXL: d_model)", std::nullopt, 2, 65536),
                  real_param("init_std", "standard deviation of W_R, u and v", 0.02,
                             [](double x) { return x > 0 ? std::string() : std::string("must be > 0"); }),
                  integer_param("seed", "weight seed", 0, 0)},
                 {"attend"},
                 [](const spec& s) {
                   if (s.integer("r_dim") % 2) {
                     throw spec_error(fmt::format("txl: r_dim={} is odd; the sinusoid needs sin/cos pairs", s.integer("r_dim")));
                   }
                   if (s.integer("r_dim") * s.integer("heads") * s.integer("dim") > (std::int64_t{1} << 26)) {
                     throw spec_error("txl: r_dim * heads * dim is more than 2^26 weights");
                   }
                 }});
}

}  // namespace pe
