// The audit's HTML page (see html.hpp): SVG drawn here (with svg.hpp's pieces), from the profile alone.
#include "audit/html.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "audit/report.hpp"
#include "audit/sweep.hpp"
#include "audit/svg.hpp"

namespace pe::audit {
namespace {

// A cell's colour from its max error as a fraction of the gate's bound: white at 0, through
// yellow and orange to red at the bound, dark red past it. By the fraction, not by ulps: ulps
// grow with the positions on a correct kernel (its bound grows with them), and a PASS must not
// read red.
std::string fraction_colour(double fraction) {
  if (!(fraction <= 1)) return "rgb(120,0,0)";  // past the bound, or not finite
  const double t = std::max(0.0, fraction);
  return fmt::format("rgb(255,{},{})", static_cast<int>(250 - 170 * t), static_cast<int>(235 - 235 * std::min(1.0, 2 * t)));
}

// The heatmap's key: the colour scale from 0 to the bound and past it.
std::string fraction_legend(double x, double y) {
  std::string out;
  const double w = 200, h = 12;
  for (int k = 0; k < 20; ++k)
    out += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"/>", x + w * k / 20, y, w / 20 + 0.5, h, fraction_colour((k + 0.5) / 20));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"30\" height=\"{}\" fill=\"{}\"/>\n", x + w + 10, y, h, fraction_colour(2));
  for (const auto& [at, text] : {std::pair{0.0, "0"}, std::pair{0.5, "0.5"}, std::pair{1.0, "1: the bound"}})
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>", x + w * at, y + h + 13, text);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">past it</text>\n", x + w + 25, y + h + 13);
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">colour: max error / the gate's bound; number: max error in ulps</text>\n", x + w + 50, y + 10);
  return out;
}


// Error against position: per octave of positions, max and RMS error and the largest bound, in
// ulps, on log-log axes (position 0 drawn one octave left of position 1).
std::string error_plot(const audit_profile& p) {
  std::vector<std::pair<double, double>> max, rms, bound;
  double lo = INFINITY, hi = 0;
  constexpr double floor_ulps = 0x1p-12;  // errors below it (exact answers) drawn on it
  for (int k = 0; k < octave_count; ++k) {
    const auto& o = p.octaves[static_cast<std::size_t>(k)];
    if (o.count == 0) continue;
    const double x = k - 1.0;  // log2 of the octave's first position (position 0 at -1)
    const auto clamp = [&](double v) { return std::log2(std::max(floor_ulps, std::isfinite(v) ? v : 0x1p60)); };
    max.emplace_back(x, clamp(o.max_ulps)), rms.emplace_back(x, clamp(o.rms_ulps())), bound.emplace_back(x, clamp(o.max_bound_ulps));
    for (const double v : {max.back().second, rms.back().second, bound.back().second}) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  if (max.empty()) return "<p>No element was checked: nothing to plot.</p>\n";
  const double x0 = std::min(-1.0, max.front().first), x1 = std::max(x0 + 1, max.back().first);
  const frame f{x0, x1, std::floor(lo) - 1, std::ceil(hi) + 1};
  std::vector<std::pair<double, std::string>> xt, yt;
  const int xstep = std::max(1, static_cast<int>((x1 - x0) / 12) + 1);
  for (int x = static_cast<int>(std::ceil(x0)); x <= x1; x += xstep) xt.emplace_back(x, x < 0 ? "0" : fmt::format("2^{}", x));
  const int ystep = std::max(1, static_cast<int>((f.y1 - f.y0) / 8) + 1);
  for (int y = static_cast<int>(f.y0); y <= f.y1; y += ystep) yt.emplace_back(y, fmt::format("2^{}", y));
  std::string out = svg_open("error against position");
  out += axes(f, xt, yt, "position (octaves; 0 at the left)", fmt::format("ulps of {}", p.setup.dtype));
  out += polyline(f, bound, "#999", "stroke-dasharray=\"6 4\"");
  out += polyline(f, rms, "#1f77b4", "");
  out += polyline(f, max, "#d62728", "");
  out += legend({{"#d62728", "max error"}, {"#1f77b4", "RMS error"}, {"#999", "the gate's bound (largest in the octave)"}});
  return out + "</svg>\n";
}

// Decade x band: each cell's max error in ulps written in it, coloured by its fraction of the bound.
std::string heatmap(const audit_profile& p) {
  const auto& s = p.setup;
  std::vector<int> decades;
  for (int d = 0; d < decade_count; ++d) {
    bool any = false;
    for (std::int64_t b = 0; b < s.band_count(); ++b) any = any || p.bucket(d, b).count > 0;
    if (any) decades.push_back(d);
  }
  if (decades.empty()) return "";
  const double cell_w = 78, cell_h = 26, left = 120, top = 40, key = 40;
  const double width = left + cell_w * static_cast<double>(s.band_count()) + 20, height = top + cell_h * static_cast<double>(decades.size()) + 20 + key;
  std::string out = svg_open(std::max(width, 640.0), height, "max error by decade and band");
  for (std::int64_t b = 0; b < s.band_count(); ++b)
    out += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", left + cell_w * (static_cast<double>(b) + 0.5), top - 8,
                       escaped(band_label(s, b)));
  for (std::size_t row = 0; row < decades.size(); ++row) {
    const double y = top + cell_h * static_cast<double>(row);
    out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n", left - 6, y + cell_h / 2 + 4, decade_label(decades[row]));
    for (std::int64_t b = 0; b < s.band_count(); ++b) {
      const auto& st = p.bucket(decades[row], b);
      const double x = left + cell_w * static_cast<double>(b);
      if (!st.count) {
        out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\" stroke=\"#fff\" class=\"cell\"/>\n", x, y, cell_w, cell_h);
        continue;
      }
      out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\" class=\"cell\" data-fraction=\"{}\"><title>{:.3g} of the bound</title></rect>",
                         x, y, cell_w, cell_h, fraction_colour(st.max_fraction), st.max_fraction, st.max_fraction);
      // White on the darkest (past the bound), black elsewhere.
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\"{}>{:.3g}</text>\n", x + cell_w / 2, y + cell_h / 2 + 4,
                         st.max_fraction <= 1 ? "" : " fill=\"#fff\"", st.max_ulps);
    }
  }
  return out + fraction_legend(left, top + cell_h * static_cast<double>(decades.size()) + 14) + "</svg>\n";
}

// The same three digits as the text report's tables (report.cpp), so that both say 154 where one said 154.5.
std::string table_row(const std::string& label, const bucket_stats& b) {
  return fmt::format("<tr><td>{}</td><td>{}</td><td>{:.3g}</td><td>{:.3g}</td><td>{:.3g}</td><td>{:.3g}</td><td>{}</td></tr>\n", escaped(label), b.count, b.max_ulps,
                     b.rms_ulps(), b.p99_ulps(), b.max_fraction, b.worst_ulps.empty() ? std::string("-") : std::to_string(b.worst_ulps.position));
}
constexpr const char* html_table_head =
    "<div class=\"wide\"><table>\n<tr><th>{}</th><th>elements</th><th>max ulp</th><th>RMS ulp</th><th>p99 ulp</th><th>max / bound</th><th>worst at</th></tr>\n";

}  // namespace

std::string html_report(const audit_profile& p) {
  const auto& s = p.setup;
  const bucket_stats t = p.total();
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += fmt::format("<title>pecheck audit: {}</title>\n", escaped(s.spec));
  out += page_style;
  out += "</head>\n<body>\n";
  out += fmt::format("<h1>pecheck audit</h1>\n<p><b>{}</b>: {} on <code>{}</code>, I/O {}, working {}, tolerance {}.</p>\n", escaped(s.implementation), s.op,
                     escaped(s.spec), s.dtype, s.working, s.tolerance);
  out += fmt::format("<p>Positions {} ({} positions), {} head(s), seed {}: {} elements checked. Verdict: <b>{}</b>.</p>\n", s.positions, s.position_count,
                     s.heads, s.seed, t.count, audit_passed(p) ? "PASS" : "FAIL");
  out += fmt::format("<p>Errors in ulps of {} at each row's scale (its largest exact value), against the binary64 reference (correctly rounded; "
                     "{} positions cross-checked against MPFR, worst {:.3g} binary64 ulp). Max {:.4g}, RMS {:.4g}, p99 &#8804; {:.3g}; worst fraction of the "
                     "gate's bound {:.4g}.</p>\n",
                     s.dtype, p.sample_positions, p.sample_worst_ulps, t.max_ulps, t.rms_ulps(), t.p99_ulps(), t.max_fraction);
  out += "<h2>Error against position</h2>\n" + error_plot(p);
  out += "<h2>Max error by position decade and frequency band</h2>\n" + heatmap(p);
  out += "<h2>Tables</h2>\n" + fmt::format(fmt::runtime(html_table_head), "positions");
  for (int d = 0; d < decade_count; ++d) {
    bucket_stats row;
    for (std::int64_t b = 0; b < s.band_count(); ++b) row.merge(p.bucket(d, b));
    if (row.count) out += table_row(decade_label(d), row);
  }
  out += "</table></div>\n" + fmt::format(fmt::runtime(html_table_head), "band");
  for (std::int64_t b = 0; b < s.band_count(); ++b) {
    bucket_stats col;
    for (int d = 0; d < decade_count; ++d) col.merge(p.bucket(d, b));
    if (col.count) out += table_row(band_label(s, b), col);
  }
  out += "</table></div>\n<h2>The full report</h2>\n<pre>" + escaped(text_report(p)) + "</pre>\n";
  out += "<p>RoFormer's long-term decay figure is about the scheme, not this kernel: <code>pecheck check --html FILE</code> draws it.</p>\n";
  return out + "</body>\n</html>\n";
}

}  // namespace pe::audit
