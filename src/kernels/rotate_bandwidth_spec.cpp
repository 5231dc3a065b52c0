// The host half of the rotate bandwidth benchmark: a rope spec's tables from pecheck's frequency laws, in C++20 (pecheck's headers), which the nvcc half (C++17) cannot include.
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/host_tables.hpp"
#include "kernels/rotate_bandwidth.hpp"
#include "pe/spec.hpp"

namespace pe::kernels {

bandwidth_rope bandwidth_rope_of(const std::string& spec, std::int64_t tokens) {
  const pe::spec s = pe::parse_spec(spec);
  if (!rotate_tables::takes(s)) throw std::invalid_argument("the rotate kernel takes rope specs only, not " + s.text());
  bandwidth_rope r;
  r.text = s.text();
  // Dynamic scalings read the call's length, so the tables are per token count.
  std::vector<std::int64_t> pos(static_cast<std::size_t>(tokens));
  std::iota(pos.begin(), pos.end(), std::int64_t{0});
  // The same layout and tables as serve_rotate's, so the benchmark launches what the gate checks.
  rotate_tables t = rotate_tables::of(s, pos);
  r.dim = t.dim, r.rotary_dim = t.rotary_dim, r.neox = t.neox;
  r.inv_freq = std::move(t.inv_freq), r.turns = std::move(t.turns), r.factor = t.factor;
  return r;
}

}  // namespace pe::kernels
