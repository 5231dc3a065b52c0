// Registry entry of the sinusoidal encodings.
#include "pe/schemes/sinusoidal.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"
#include "pe/fast_kernels.hpp"
#include "pe/parallel.hpp"
#include "pe/sin_cos_dd.hpp"

namespace pe {

tensor<double> sinusoidal_encode_binary64(const spec& s, std::span<const std::int64_t> pos) {
  const auto freq = sinusoidal_frequencies::of(s);
  const auto slots = sinusoidal_slots::of(s);
  const std::int64_t half = slots.half, dim = freq.dim, tokens = static_cast<std::int64_t>(pos.size());
  const phase_table<double> phases(freq, static_cast<int>(half));
  const fast_kernels& kernels = default_fast_kernels();
  tensor<double> out({tokens, dim});
  // Pair i of token t, where the kernels cannot prove RN(sin) and RN(cos) (position 0's sin 0 = 0,
  // near-ties).
  const auto declined = parallel_lists<std::pair<std::int64_t, std::int64_t>>(tokens, half, [&](std::int64_t begin, std::int64_t end, auto& list) {
    sin_cos_rows rows;
    std::vector<std::int64_t> positions(static_cast<size_t>(half));
    std::vector<double> sines(positions.size()), cosines(positions.size()), certain(positions.size());
    for (std::int64_t t = begin; t < end; ++t) {
      std::fill(positions.begin(), positions.end(), pos[static_cast<size_t>(t)]);
      rows.compute(positions, phases.all_turns(), kernels);
      kernels.round_sin_cos_rows({half, rows.s_hi.data(), rows.s_lo.data(), rows.c_hi.data(), rows.c_lo.data(), sines.data(), cosines.data(), certain.data()});
      double* row = out.data.data() + t * dim;
      for (std::int64_t i = 0; i < half; ++i) {
        row[slots.sin_at(i)] = sines[static_cast<size_t>(i)], row[slots.cos_at(i)] = cosines[static_cast<size_t>(i)];
        if (certain[static_cast<size_t>(i)] == 0.0) list.emplace_back(t, i);
      }
    }
  });
  // MPFR's precision is process-wide: the declined pairs are computed here, on one thread.
  for (const auto& [t, i] : declined) {
    const auto [sn, cs] = phases.sin_cos_wide(pos[static_cast<size_t>(t)], static_cast<int>(i));
    out(t, slots.sin_at(i)) = sn.convert_to<double>();
    out(t, slots.cos_at(i)) = cs.convert_to<double>();
  }
  return out;
}

namespace {

scheme_info sinusoidal_info() {
  param_info dim{"dim", param_kind::integer, "components per position vector (even: sin/cos pairs)"};
  dim.check = [](const value& v) {
    const auto d = std::get<std::int64_t>(v);
    if (d < 2) return std::string("must be >= 2");
    if (d > max_dim) return fmt::format("must be <= {}", max_dim);
    if (d % 2) return std::string("is odd; sin/cos pairs need an even dim");
    return dim_over_limit(d);
  };
  return {"sinusoidal", "encoding",
       "sin/cos of p * base^(-2i/dim) (Vaswani et al. 2017); fairseq layout uses base^(-i/(dim/2-1))",
       {dim,
        real_param("base", "wavelength base: the slowest pair has wavelength 2 pi base^((dim-2)/dim)", 10000.0,
                   [](double b) { return b > 1 ? std::string() : std::string("must be > 1"); }),
        choice_param("layout",
                     "interleaved: sin at 2i, cos at 2i+1 (the paper); concat: [sin | cos] halves, same "
                     "frequencies; fairseq: [sin | cos] halves, exponent divided by dim/2-1 (fairseq, tensor2tensor)",
                     "interleaved", {"interleaved", "concat", "fairseq"},
                     {"interleaved sin and cos", "sin and cos in halves", "fairseq's halves and exponent"})},
       {"encode", "attend"},
       [](const spec& s) {
         if (s.choice("layout") == "fairseq" && s.integer("dim") == 2) {
           throw spec_error(
               "sinusoidal: dim=2 with layout=fairseq divides the exponent by dim/2-1 = 0; use dim >= 4");
         }
       }};
}

scheme_behaviour sinusoidal_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::absolute;
  b.encode = typed_hook<encode_signature>::of([]<class T>(const spec& s, std::span<const std::int64_t> p) { return sinusoidal_encode<T>(s, p); });
  // Component j is sin or cos of p omega_i: i = j / 2 interleaved, j mod dim/2 in the halves.
  b.phases = [](const spec& s) {
    encode_phases ph{sinusoidal_frequencies::of(s), {}};
    const std::int64_t dim = s.integer("dim");
    const bool interleaved = s.choice("layout") == "interleaved";
    for (std::int64_t j = 0; j < dim; ++j) ph.pair_of_component.push_back(static_cast<int>(interleaved ? j / 2 : j % (dim / 2)));
    return std::optional<encode_phases>(std::move(ph));
  };
  return b;
}

const scheme_registration sinusoidal_registered{20, sinusoidal_info(), sinusoidal_behaviour()};

}  // namespace

}  // namespace pe
