// Shaw's seeded tables and registry entry.
#include "pe/schemes/shaw.hpp"

#include "pe/registry.hpp"
#include "pe/schemes/absolute.hpp"

namespace pe {

shaw_tables make_shaw_tables(const spec& s) {
  shaw_tables t{s.integer("k"), s.integer("dim"), {}, {}};
  const std::int64_t rows = 2 * t.k + 1, entries = rows * t.dim;
  const auto seed = static_cast<std::uint64_t>(s.integer("seed"));
  t.key = learned_entries(seed, 0, entries, s.real("init_std"));
  t.value = learned_entries(seed, entries, entries, s.real("init_std"));
  return t;
}

void register_shaw_schemes(std::vector<scheme_info>& out) {
  out.push_back({"shaw", "encoding",
                 "Shaw et al. 2018: key - query clipped to [-k, k] selects a^K (added to the keys in the score) and "
                 "a^V (added to the values); seeded [2k+1, dim] tables shared by the heads",
                 {integer_param("k", "clipping distance", std::nullopt, 1, 4096),
                  integer_param("dim", "head dimension of q, k and v", std::nullopt, 1, max_dim),
                  init_std_param(0.02, "standard deviation of the table entries"), seed_param()},
                 {"attend"},
                 {}});
}

}  // namespace pe
