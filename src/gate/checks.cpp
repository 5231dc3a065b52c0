// The gate's checks' verdicts (see checks.hpp): their names, coverage holding a pass to what was answered, and the minimal-case line.
#include "gate/checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pe::gate {

std::string_view verdict_name(verdict v) {
  switch (v) {
    case verdict::pass: return "PASS";
    case verdict::fail: return "FAIL";
    case verdict::unsupported: return "UNSUPPORTED";
    case verdict::skipped: return "SKIPPED";
    case verdict::incomplete: return "INCOMPLETE";
  }
  return "?";
}

void hold_to_coverage(check_result& r) {
  if (r.result != verdict::pass) return;
  std::vector<std::string> why;
  if (r.cases < r.planned) why.push_back(fmt::format("{} of the {} cases asked for were answered", r.cases, r.planned));
  if (!r.never_answered.empty()) why.push_back(fmt::format("never answered: {}", fmt::join(r.never_answered, ", ")));
  if (why.empty()) return;
  r.result = verdict::incomplete;
  const std::string declined = r.declined_ops.empty() ? "" : fmt::format(" ({} declined)", fmt::join(r.declined_ops, ", "));
  r.detail = fmt::format("{}{}{}{}", fmt::join(why, "; "), declined, r.detail.empty() ? "" : "; ", r.detail);
}
std::string minimal_case_line(const gate_options& o, bool shrink_stopped, const props::drawn_case& example) {
  if (example.empty()) return "";
  const std::string head = shrink_stopped ? fmt::format("minimal case (the smallest found in {} shrinking steps, where shrinking stops):", o.shrink_budget)
                                          : std::string("minimal case:");
  // On a line of its own under a long head; after a short one. --json has the whole case.
  if (head.size() > 20) return fmt::format("\n    {}\n      {}", head, props::case_lines(example, 6, 6));
  return fmt::format("\n    {} {}", head, props::case_lines(example, 4 + head.size() + 1, 6));
}

}  // namespace pe::gate
