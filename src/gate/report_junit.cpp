// The gate report as JUnit XML, for CI dashboards (see report_printers.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

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
  const auto failed = [](const check_result& r) { return r.result == verdict::fail || (r.result == verdict::incomplete && !r.accepted); };
  for (const auto& r : results) {
    failures += failed(r);
    skipped += r.result != verdict::pass && !failed(r);
  }
  std::string out = fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"pecheck gate: {}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\">\n",
                                xml_escaped(report.implementation), results.size(), failures, skipped);
  out += fmt::format("  <properties>\n    <property name=\"max_pos\" value=\"{}\"/>\n    <property name=\"allow_partial\" value=\"{}\"/>\n  </properties>\n",
                     report.max_pos, xml_escaped(fmt::format("{}", fmt::join(report.allow_partial, ","))));
  for (const auto& r : results) {
    out += fmt::format("  <testcase classname=\"{}\" name=\"{}\">", r.check, xml_escaped(r.spec_and_layout()));
    if (failed(r)) {
      const std::string head = r.result == verdict::incomplete ? "INCOMPLETE: " : "";
      out += fmt::format("<failure message=\"{}\">{}\nreproduce: {}{}</failure>", xml_escaped(head + r.detail.substr(0, r.detail.find('\n'))),
                         xml_escaped(r.detail), xml_escaped(r.reproduce), r.diagnose.empty() ? "" : xml_escaped("\ndiagnose: " + r.diagnose));
    } else if (r.result != verdict::pass) {
      out += fmt::format("<skipped message=\"{}\"/>", xml_escaped(std::string(verdict_name(r.result)) + ": " + r.detail));
    }
    out += "</testcase>\n";
  }
  return out + "</testsuite>\n";
}

}  // namespace pe::gate
