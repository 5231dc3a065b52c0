// RoFormer's long-term decay section (see decay_page.hpp).
#include "audit/decay_page.hpp"

#include <fmt/format.h>

#include "audit/svg.hpp"
#include "golden/figures.hpp"
#include "pe/long_term_decay.hpp"
#include "pe/mp.hpp"

namespace pe::audit {
namespace {

// RoFormer's figure 2: the decay bound against relative distance, d = 128, base 10^4, r = 0..1024
// in binary64, the golden distances marked.
std::string decay_plot() {
  std::vector<std::pair<double, double>> curve;
  for (std::int64_t r = 0; r <= 1024; ++r) curve.emplace_back(static_cast<double>(r), roformer_decay_bound<double>(golden::decay_dim, golden::decay_base, r));
  const frame f{0, 1024, 0, 35};
  std::vector<std::pair<double, std::string>> xt, yt;
  for (int x = 0; x <= 1024; x += 128) xt.emplace_back(x, std::to_string(x));
  for (int y = 0; y <= 35; y += 5) yt.emplace_back(y, std::to_string(y));
  std::string out = svg_open("RoFormer long-term decay bound");
  out += axes(f, xt, yt, "relative distance r", "(1/(d/2)) sum_j |S_j|");
  out += polyline(f, curve, "#2ca02c", "");
  for (const auto r : golden::decay_distances()) {
    const double v = roformer_decay_bound<double>(golden::decay_dim, golden::decay_base, r);
    out += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"#000\"/>\n", f.sx(static_cast<double>(r)), f.sy(v));
  }
  out += legend({{"#2ca02c", "d = 128, base 10^4 (binary64); dots: the golden distances"}}, frame::width / 2 - 40);
  return out + "</svg>\n";
}

}  // namespace

std::string decay_section() {
  std::string out = "<h2>RoFormer's long-term decay</h2>\n<p>The bound (1/(d/2)) &#931;<sub>j</sub> |S<sub>j</sub>| of RoPE's relative score per unit of "
         "max |h<sub>k+1</sub> &#8722; h<sub>k</sub>|, against the relative distance (RoFormer, section 3.4.3; proofs/rope.long_term_decay.md). "
         "It falls on average but not monotonically, and bounds the score; the score itself does not decay.</p>\n";
  out += decay_plot() + "<table>\n<tr><th>distance</th><th>bound (MPFR, 256 bits)</th></tr>\n";
  {
    const mp_precision scope(256);
    for (const auto r : golden::decay_distances())
      out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", r, roformer_decay_bound<mp_real>(golden::decay_dim, golden::decay_base, r).str(20, std::ios_base::fmtflags(0)));
  }
  return out + "</table>\n";
}

}  // namespace pe::audit
