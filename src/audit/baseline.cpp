// Audit baselines written and compared (see baseline.hpp).
#include "audit/baseline.hpp"

#include <map>

#include <fmt/format.h>

#include "audit/report.hpp"
#include "audit/sweep.hpp"
#include "pe/error.hpp"

namespace pe::audit {
namespace {

// A bucket's line: "positions | band | elements | max ulp | RMS ulp | max/bound".
struct bucket_line {
  std::uint64_t count = 0;
  double max_ulps = 0, rms_ulps = 0, fraction = 0;
};

std::vector<std::string> fields_of(const std::string& rest) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t bar = rest.find(" | ", start);
    out.push_back(rest.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
    if (bar == std::string::npos) return out;
    start = bar + 3;
  }
}

std::int64_t covered_positions(const audit_profile& p) {
  std::int64_t n = 0;
  for (const auto& r : p.coverage) n += r.second - r.first;
  return n;
}

// The setup lines a baseline must match: a baseline of another configuration says nothing of this one.
const char* const matched_keys[] = {"spec", "op", "dtype", "working", "tolerance"};
std::string setup_value(const audit_setup& s, const std::string& key) {
  if (key == "spec") return s.spec;
  if (key == "op") return s.op;
  if (key == "dtype") return s.dtype;
  if (key == "working") return s.working;
  return s.tolerance;
}

}  // namespace

std::string baseline_text(const audit_profile& p) {
  const auto& s = p.setup;
  std::string out = std::string(audit_baseline_header) + "\n";
  for (const char* key : matched_keys) out += fmt::format("{} {}\n", key, setup_value(s, key));
  out += fmt::format("implementation {}\npositions {}\nheads {}\nseed {}\n", s.implementation, s.positions, s.heads, s.seed);
  out += fmt::format("covered {}\nverdict {}\n", covered_positions(p), audit_passed(p) ? "PASS" : "FAIL");
  out += "# bucket positions | band | elements | max ulp | RMS ulp | max/bound\n";
  for (int d = 0; d < decade_count; ++d)
    for (std::int64_t b = 0; b < s.band_count(); ++b) {
      const auto& st = p.bucket(d, b);
      if (st.count == 0) continue;
      out += fmt::format("bucket {} | {} | {} | {} | {} | {}\n", decade_label(d), band_label(s, b), st.count, gate::baseline_number(st.max_ulps),
                         gate::baseline_number(st.rms_ulps()), gate::baseline_number(st.max_fraction));
    }
  return out;
}

gate::baseline_verdict compare_with_baseline(const audit_profile& now, const std::string& path, double factor) {
  const auto lines = gate::read_baseline(path, audit_baseline_header);
  std::map<std::string, std::string> values;
  std::map<std::string, int> line_of;  // each setting's line, for errors
  std::vector<std::pair<std::string, bucket_line>> buckets;  // "positions | band", in file order
  for (const auto& l : lines) {
    if (l.key != "bucket") {
      values[l.key] = l.rest, line_of[l.key] = l.line;
      continue;
    }
    const auto f = fields_of(l.rest);
    if (f.size() != 6) throw input_error(fmt::format("--baseline '{}' line {}: a bucket line has 6 fields separated by ' | '", path, l.line));
    bucket_line b;
    const double count = gate::baseline_number_of(f[2], path, l.line);
    if (!(count >= 0 && count < 0x1p63)) throw input_error(fmt::format("--baseline '{}' line {}: '{}' is not a count of elements", path, l.line, f[2]));
    b.count = static_cast<std::uint64_t>(count);
    b.max_ulps = gate::baseline_number_of(f[3], path, l.line), b.rms_ulps = gate::baseline_number_of(f[4], path, l.line);
    b.fraction = gate::baseline_number_of(f[5], path, l.line);
    buckets.emplace_back(f[0] + " | " + f[1], b);
  }
  for (const char* key : matched_keys) {
    const auto it = values.find(key);
    if (it == values.end()) throw input_error(fmt::format("--baseline '{}': no '{}' line", path, key));
    if (it->second != setup_value(now.setup, key)) {
      throw input_error(fmt::format("--baseline '{}' is for {} {}; this audit's is {}", path, key, it->second, setup_value(now.setup, key)));
    }
  }
  gate::baseline_verdict v;
  if (values["verdict"] == "PASS" && !audit_passed(now)) v.regression("verdict: PASS -> FAIL");
  if (values.count("covered")) {
    const double before = gate::baseline_number_of(values["covered"], path, line_of["covered"]);
    if (static_cast<double>(covered_positions(now)) < before) v.regression(fmt::format("coverage: {} -> {} positions", before, covered_positions(now)));
  }
  // This run's buckets by the same labels.
  std::map<std::string, const bucket_stats*> current;
  for (int d = 0; d < decade_count; ++d)
    for (std::int64_t b = 0; b < now.setup.band_count(); ++b)
      if (now.bucket(d, b).count) current[decade_label(d) + " | " + band_label(now.setup, b)] = &now.bucket(d, b);
  constexpr double floor_ulps = 1;
  for (const auto& [label, before] : buckets) {
    const auto it = current.find(label);
    if (it == current.end() || it->second->count < before.count) {
      v.regression(fmt::format("{}: coverage {} -> {} elements", label, before.count, it == current.end() ? 0 : it->second->count));
      continue;
    }
    const double after = it->second->max_ulps;
    if (gate::grew_past(before.max_ulps, after, factor, floor_ulps)) {
      v.regression(fmt::format("{}: max {} -> {} ulp", label, gate::baseline_number(before.max_ulps), gate::baseline_number(after)));
    } else if (gate::grew_past(after, before.max_ulps, factor, floor_ulps)) {
      v.improvement(fmt::format("{}: max {} -> {} ulp", label, gate::baseline_number(before.max_ulps), gate::baseline_number(after)));
    }
  }
  return v;
}

}  // namespace pe::audit
