// The gate report as JUnit XML, for CI dashboards (see report_printers.hpp).
#include <fmt/format.h>

#include "gate/report_printers.hpp"

namespace pe::gate {
namespace {

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string junit_report(const gate_report& report) {
  const auto& results = report.results;
  int failures = 0, skipped = 0;
  for (const auto& r : results) {
    failures += r.result == verdict::fail;
    skipped += r.result == verdict::unsupported || r.result == verdict::skipped;
  }
  std::string out = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"pecheck gate: {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                                xml_escaped(report.implementation), results.size(), failures, skipped);
  for (const auto& r : results) {
    out += fmt::format("  <testcase classname=\"{}\" name=\"{}\">", r.check, xml_escaped(r.spec));
    if (r.result == verdict::fail) {
      out += fmt::format("<failure message=\"{}\">{}\nreproduce: {}</failure>", xml_escaped(r.detail.substr(0, r.detail.find('\n'))),
                         xml_escaped(r.detail), xml_escaped(r.reproduce));
    } else if (r.result != verdict::pass) {
      out += fmt::format("<skipped message=\"{}\"/>", xml_escaped(std::string(verdict_name(r.result)) + ": " + r.detail));
    }
    out += "</testcase>\n";
  }
  return out + "</testsuite>\n";
}

}  // namespace pe::gate
