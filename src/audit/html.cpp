// The audit's HTML page (see html.hpp): SVG drawn here, from the profile alone.
#include "audit/html.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "audit/report.hpp"
#include "audit/sweep.hpp"
#include "golden/figures.hpp"
#include "pe/long_term_decay.hpp"

namespace pe::audit {
namespace {

std::string escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

// A plot's frame: the data window [x0, x1] x [y0, y1] mapped onto an SVG of width x height with margins.
struct frame {
  double x0, x1, y0, y1;
  static constexpr double width = 760, height = 340, left = 70, right = 20, top = 20, bottom = 50;
  double sx(double x) const { return left + (x - x0) / (x1 - x0) * (width - left - right); }
  double sy(double y) const { return height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom); }
};

std::string svg_open(const std::string& label) {
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{}\">\n", frame::width, frame::height,
                     escaped(label));
}

// Axes with ticks: x ticks at the given values and labels, y likewise.
std::string axes(const frame& f, const std::vector<std::pair<double, std::string>>& xt, const std::vector<std::pair<double, std::string>>& yt,
                 const std::string& xlabel, const std::string& ylabel) {
  std::string out = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#444\"/>\n", frame::left, frame::top,
                                frame::width - frame::left - frame::right, frame::height - frame::top - frame::bottom);
  for (const auto& [x, text] : xt)
    out += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0:.1f}\" y=\"{3}\" font-size=\"11\" text-anchor=\"middle\">{4}</text>\n",
                       f.sx(x), frame::top, frame::height - frame::bottom, frame::height - frame::bottom + 15, escaped(text));
  for (const auto& [y, text] : yt)
    out += fmt::format("<line x1=\"{1}\" y1=\"{0:.1f}\" x2=\"{2}\" y2=\"{0:.1f}\" stroke=\"#ddd\"/><text x=\"{3}\" y=\"{4:.1f}\" font-size=\"11\" text-anchor=\"end\">{5}</text>\n",
                       f.sy(y), frame::left, frame::width - frame::right, frame::left - 5, f.sy(y) + 4, escaped(text));
  out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n", (frame::left + frame::width - frame::right) / 2,
                     frame::height - 12, escaped(xlabel));
  out += fmt::format("<text x=\"14\" y=\"{0}\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 {0})\">{1}</text>\n",
                     (frame::top + frame::height - frame::bottom) / 2, escaped(ylabel));
  return out;
}

std::string polyline(const frame& f, const std::vector<std::pair<double, double>>& points, const std::string& color, const std::string& style) {
  std::string pts;
  for (const auto& [x, y] : points) pts += fmt::format("{:.1f},{:.1f} ", f.sx(x), f.sy(y));
  return fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\" {} points=\"{}\"/>\n", color, style, pts);
}

// Lines and their labels, from (x, top) down.
std::string legend(const std::vector<std::pair<std::string, std::string>>& entries, double x = frame::left + 10) {
  std::string out;
  double y = frame::top + 14;
  for (const auto& [color, text] : entries) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/><text x=\"{4}\" y=\"{5}\" font-size=\"11\">{6}</text>\n",
                       x, y, x + 20, color, x + 25, y + 4, escaped(text));
    y += 16;
  }
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

// Decade x band: each cell's max error in ulps, coloured on a log scale, the value written in it.
std::string heatmap(const audit_profile& p) {
  const auto& s = p.setup;
  std::vector<int> decades;
  double lo = INFINITY, hi = 0;
  for (int d = 0; d < decade_count; ++d) {
    bool any = false;
    for (std::int64_t b = 0; b < s.band_count(); ++b)
      if (const auto& st = p.bucket(d, b); st.count) {
        any = true;
        const double v = std::log2(std::max(0x1p-12, std::isfinite(st.max_ulps) ? st.max_ulps : 0x1p60));
        lo = std::min(lo, v), hi = std::max(hi, v);
      }
    if (any) decades.push_back(d);
  }
  if (decades.empty()) return "";
  const double cell_w = 78, cell_h = 26, left = 120, top = 40;
  const double width = left + cell_w * static_cast<double>(s.band_count()) + 20, height = top + cell_h * static_cast<double>(decades.size()) + 20;
  std::string out = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"max error by decade and band\">\n",
                                width, height);
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
        out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"#f4f4f4\" stroke=\"#fff\"/>\n", x, y, cell_w, cell_h);
        continue;
      }
      const double v = std::log2(std::max(0x1p-12, std::isfinite(st.max_ulps) ? st.max_ulps : 0x1p60));
      const double t = hi > lo ? (v - lo) / (hi - lo) : 0;  // 0: the least error, 1: the largest
      const int red = 255, green = static_cast<int>(245 - 180 * t), blue = static_cast<int>(235 - 200 * t);
      out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" height=\"{}\" fill=\"rgb({},{},{})\" stroke=\"#fff\"/>", x, y, cell_w, cell_h, red, green, blue);
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"middle\">{:.3g}</text>\n", x + cell_w / 2, y + cell_h / 2 + 4, st.max_ulps);
    }
  }
  return out + "</svg>\n";
}

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

std::string table_row(const std::string& label, const bucket_stats& b) {
  return fmt::format("<tr><td>{}</td><td>{}</td><td>{:.4g}</td><td>{:.4g}</td><td>{:.3g}</td><td>{:.4g}</td><td>{}</td></tr>\n", escaped(label), b.count, b.max_ulps,
                     b.rms_ulps(), b.p99_ulps(), b.max_fraction, b.worst_ulps.empty() ? std::string("-") : std::to_string(b.worst_ulps.position));
}
constexpr const char* html_table_head =
    "<table>\n<tr><th>{}</th><th>elements</th><th>max ulp</th><th>RMS ulp</th><th>p99 ulp</th><th>max / bound</th><th>worst at</th></tr>\n";

}  // namespace

std::string html_report(const audit_profile& p) {
  const auto& s = p.setup;
  const bucket_stats t = p.total();
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n";
  out += fmt::format("<title>pecheck audit: {}</title>\n", escaped(s.spec));
  out += "<style>body{font-family:sans-serif;margin:2em;max-width:72em}table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f0f0f0}pre{background:#f8f8f8;padding:1em}</style>\n";
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
  out += "</table>\n" + fmt::format(fmt::runtime(html_table_head), "band");
  for (std::int64_t b = 0; b < s.band_count(); ++b) {
    bucket_stats col;
    for (int d = 0; d < decade_count; ++d) col.merge(p.bucket(d, b));
    if (col.count) out += table_row(band_label(s, b), col);
  }
  out += "</table>\n<h2>The full report</h2>\n<pre>" + escaped(text_report(p)) + "</pre>\n";
  out += "<h2>RoFormer's long-term decay</h2>\n<p>The bound (1/(d/2)) &#931;<sub>j</sub> |S<sub>j</sub>| of RoPE's relative score per unit of "
         "max |h<sub>k+1</sub> &#8722; h<sub>k</sub>|, against the relative distance (RoFormer, section 3.4.3; proofs/rope.long_term_decay.md). "
         "It falls on average but not monotonically, and bounds the score; the score itself does not decay.</p>\n";
  out += decay_plot() + "<table>\n<tr><th>distance</th><th>bound (MPFR, 256 bits)</th></tr>\n";
  {
    const mp_precision scope(256);
    for (const auto r : golden::decay_distances())
      out += fmt::format("<tr><td>{}</td><td>{}</td></tr>\n", r, roformer_decay_bound<mp_real>(golden::decay_dim, golden::decay_base, r).str(20, std::ios_base::fmtflags(0)));
  }
  return out + "</table>\n</body>\n</html>\n";
}

}  // namespace pe::audit
