// SVG pieces for pecheck's HTML pages (see svg.hpp).
#include "audit/svg.hpp"

#include <fmt/format.h>

namespace pe::audit {

const char* const page_style =
    "<style>body{font-family:sans-serif;margin:2em;max-width:72em}table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}th{background:#f0f0f0}pre{background:#f8f8f8;padding:1em;overflow-x:auto}"
    "svg{max-width:100%;height:auto}.wide{overflow-x:auto}</style>\n";

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


// An SVG drawn at width x height that scales down with the page (a narrow window, 800 px): its
// viewBox keeps the drawing, the page's style caps it at the width it has.
std::string svg_open(double width, double height, const std::string& label) {
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"{2}\">\n",
                     width, height, escaped(label));
}
std::string svg_open(const std::string& label) { return svg_open(frame::width, frame::height, label); }

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
std::string legend(const std::vector<std::pair<std::string, std::string>>& entries, double x) {
  std::string out;
  double y = frame::top + 14;
  for (const auto& [color, text] : entries) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{3}\" stroke-width=\"2\"/><text x=\"{4}\" y=\"{5}\" font-size=\"11\">{6}</text>\n",
                       x, y, x + 20, color, x + 25, y + 4, escaped(text));
    y += 16;
  }
  return out;
}

}  // namespace pe::audit
