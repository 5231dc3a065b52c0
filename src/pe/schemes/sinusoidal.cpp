// Registry entry of the sinusoidal encodings.
#include "pe/schemes/sinusoidal.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {

namespace {

scheme_info sinusoidal_info() {
  param_info dim{"dim", param_kind::integer, "components per position vector (even: sin/cos pairs)"};
  dim.check = [](const value& v) {
    const auto d = std::get<std::int64_t>(v);
    if (d < 2) return std::string("must be >= 2");
    if (d > max_dim) return fmt::format("must be <= {}", max_dim);
    if (d % 2) return std::string("is odd; sin/cos pairs need an even dim");
    return std::string();
  };
  return {"sinusoidal", "encoding",
       "sin/cos of p * base^(-2i/dim) (Vaswani et al. 2017); fairseq layout uses base^(-i/(dim/2-1))",
       {dim,
        real_param("base", "wavelength base: the slowest pair has wavelength 2 pi base^((dim-2)/dim)", 10000.0,
                   [](double b) { return b > 1 ? std::string() : std::string("must be > 1"); }),
        choice_param("layout",
                     "interleaved: sin at 2i, cos at 2i+1 (the paper); concat: [sin | cos] halves, same "
                     "frequencies; fairseq: [sin | cos] halves, exponent divided by dim/2-1 (fairseq, tensor2tensor)",
                     "interleaved", {"interleaved", "concat", "fairseq"})},
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

const scheme_registration registered{sinusoidal_info(), sinusoidal_behaviour()};

}  // namespace

}  // namespace pe
