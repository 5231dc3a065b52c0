// Registry entry of the sinusoidal encodings.
#include "pe/schemes/sinusoidal.hpp"

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/registry.hpp"

namespace pe {

void register_sinusoidal_schemes(std::vector<scheme_info>& out) {
  param_info dim{"dim", param_kind::integer, "components per position vector (even: sin/cos pairs)"};
  dim.check = [](const value& v) {
    const auto d = std::get<std::int64_t>(v);
    if (d < 2) return std::string("must be >= 2");
    if (d > max_dim) return fmt::format("must be <= {}", max_dim);
    if (d % 2) return std::string("is odd; sin/cos pairs need an even dim");
    return std::string();
  };
  out.push_back(
      {"sinusoidal", "encoding",
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
       }});
}

}  // namespace pe
