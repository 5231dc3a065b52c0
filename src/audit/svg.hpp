// The pieces pecheck's HTML pages draw their SVG with: escaping, a plot's frame, axes, lines and legends, the page's style.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace pe::audit {

// text with <, >, & and " escaped for HTML.
std::string escaped(const std::string& text);

// A plot's frame: the data window [x0, x1] x [y0, y1] mapped onto an SVG of width x height with margins.
struct frame {
  double x0, x1, y0, y1;
  static constexpr double width = 760, height = 340, left = 70, right = 20, top = 20, bottom = 50;
  double sx(double x) const { return left + (x - x0) / (x1 - x0) * (width - left - right); }
  double sy(double y) const { return height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom); }
};

// An SVG drawn at width x height that scales down with the page (a narrow window, 800 px): its
// viewBox keeps the drawing, page_style caps it at the width it has. The second: a frame's size.
std::string svg_open(double width, double height, const std::string& label);
std::string svg_open(const std::string& label);

// Axes with ticks: x ticks at the given values and labels, y likewise.
std::string axes(const frame& f, const std::vector<std::pair<double, std::string>>& xt, const std::vector<std::pair<double, std::string>>& yt,
                 const std::string& xlabel, const std::string& ylabel);
std::string polyline(const frame& f, const std::vector<std::pair<double, double>>& points, const std::string& color, const std::string& style);
// Lines and their labels, from (x, top) down.
std::string legend(const std::vector<std::pair<std::string, std::string>>& entries, double x = frame::left + 10);

// The <style> of every page: plots capped at the page's width, wide tables and text scrolling in
// their own box, so that nothing overflows sideways at 800 px.
extern const char* const page_style;

}  // namespace pe::audit
