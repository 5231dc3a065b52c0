// Shaw's seeded tables and registry entry.
#include "pe/schemes/shaw.hpp"

#include "pe/attention_parts.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"
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

namespace {

scheme_info shaw_info() {
  return {"shaw", "encoding",
                 "Shaw et al. 2018: key - query clipped to [-k, k] selects a^K (added to the keys in the score) and "
                 "a^V (added to the values); seeded [2k+1, dim] tables shared by the heads",
                 {integer_param("k", "clipping distance", std::nullopt, 1, 4096),
                  integer_param("dim", "head dimension of q, k and v", std::nullopt, 1, max_dim),
                  init_std_param(0.02, "standard deviation of the table entries"), seed_param()},
                 {"attend"},
                 {}};
}

scheme_behaviour shaw_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::score_terms;
  b.head_dim = [](const spec& s) { return s.integer("dim"); };
  b.value_dim_is_head_dim = true;
  // Relative key and value embeddings, row shaw_row(kpos, qpos) of each table.
  b.score_terms = [](const spec& s, const attend_inputs& in, const detail::projected& p) {
    // The inputs' shapes before the tables: building them for a mismatched call is wasted work.
    if (s.integer("dim") != p.dim || s.integer("dim") != p.value_dim) {
      throw input_error(fmt::format("attend: shaw has dim={} but q, k, v have head dims {}, {}", s.integer("dim"), p.dim, p.value_dim));
    }
    detail::require_position_per_token(s, in, p);
    shaw_tables rel = make_shaw_tables(s);
    score_adjustment out;
    out.rel_key = std::move(rel.key);
    out.rel_value = std::move(rel.value);
    out.row = [qpos = in.qpos, kpos = in.kpos, k = rel.k](std::int64_t i, std::int64_t j) { return shaw_row(kpos[j], qpos[i], k); };
    return out;
  };
  b.gate_gaps = {{"attend", "the seeded relative tables enter the scores; the gate's attend error model is not derived for them"}};
  return b;
}

const scheme_registration shaw_registered{20, shaw_info(), shaw_behaviour()};

}  // namespace

}  // namespace pe
