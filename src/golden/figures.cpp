// The lessons' figures as golden tables (see figures.hpp).
#include "golden/figures.hpp"

#include <fmt/format.h>

#include "pe/long_term_decay.hpp"

namespace pe::golden {

const std::vector<std::int64_t>& decay_distances() {
  static const std::vector<std::int64_t> d{0, 10, 50, 100, 250, 1000};
  return d;
}

std::string decay_table_text() {
  std::string out = fmt::format(
      "# RoFormer's long-term decay bound (1/(d/2)) sum_(j=1..d/2) |S_j|, S_j = sum_(k<j) e^(i r theta_k),\n"
      "# theta_k = base^(-2k/d), at relative distance r; d = {}, base = {}.\n"
      "# Written by pecheck golden regen: MPFR at 256 bits, 40 significant digits. distance value\n",
      decay_dim, decay_base);
  const mp_precision scope(256);
  for (const auto r : decay_distances()) {
    const mp_real v = roformer_decay_bound<mp_real>(decay_dim, decay_base, r);
    out += fmt::format("{} {}\n", r, v.str(40, std::ios_base::fmtflags(0)));
  }
  return out;
}

}  // namespace pe::golden
