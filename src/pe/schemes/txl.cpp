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
  w.w_r = learned_entries(seed, 0, w.r_dim * width, sd);
  w.u = learned_entries(seed, w.r_dim * width, width, sd);
  w.v = learned_entries(seed, w.r_dim * width + width, width, sd);
  return w;
}

void register_txl_schemes(std::vector<scheme_info>& out) {
  out.push_back({"txl", "encoding",
                 "Transformer-XL: score q.k + q.W_R R_(i-j) + u.k + v.W_R R_(i-j), R the [sin | cos] sinusoid of i - j; "
                 "seeded W_R, u, v",
                 {integer_param("heads", "attention heads", std::nullopt, 1, 4096),
                  integer_param("dim", "head dimension of q and k", std::nullopt, 1, 4096),
                  integer_param("r_dim", "dimension of the relative sinusoid R (TXL: d_model)", std::nullopt, 2, 65536),
                  init_std_param(0.02, "standard deviation of W_R, u and v"), seed_param()},
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
