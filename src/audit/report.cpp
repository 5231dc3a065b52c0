// The audit's text report (see report.hpp).
#include "audit/report.hpp"

#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "audit/position_set.hpp"
#include "gate/io.hpp"
#include "pe/op_schema.hpp"
#include "pe/spec.hpp"

namespace pe::audit {
namespace {

std::string where(const audit_setup& s, const element_record& e) {
  if (takes_x_rows(s.op, parse_spec_any(s.spec))) return fmt::format("position {}, head {}, dim {}", e.position, e.head, e.index);
  return fmt::format("position {}, component {}", e.position, e.index);
}

std::string row_of(const std::string& label, const bucket_stats& b) {
  return fmt::format("| {:<14} | {:>12} | {:>9.3g} | {:>9.3g} | {:>9.3g} | {:>9.3g} | {:>9} |\n", label, b.count, b.max_ulps, b.rms_ulps(), b.p99_ulps(),
                     b.max_fraction, b.worst_ulps.empty() ? std::string("-") : std::to_string(b.worst_ulps.position));
}
constexpr const char* text_table_head =
    "| {:<14} | {:>12} | {:>9} | {:>9} | {:>9} | {:>9} | {:>9} |\n|----------------|--------------|-----------|-----------|-----------|-----------|-----------|\n";

std::string ranges_text(const index_ranges& v) {
  std::vector<std::string> parts;
  for (const auto& r : v) parts.push_back(fmt::format("{}..{}", r.first, r.second - 1));
  return parts.empty() ? "none" : fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

std::string band_label(const audit_setup& s, std::int64_t band) {
  if (band >= static_cast<std::int64_t>(s.bands.size())) return "unrotated";
  const auto [a, b] = s.bands[static_cast<std::size_t>(band)];
  return a == b ? fmt::format("{} {}", s.unit, a) : fmt::format("{}s {}-{}", s.unit, a, b);
}

std::int64_t first_merged_position(const std::string& dtype) {
  return (std::int64_t{1} << gate::dtype_format(gate::parse_dtype(dtype)).precision) + 1;
}

std::string text_report(const audit_profile& p) {
  const auto& s = p.setup;
  std::string out;
  out += fmt::format("audit: {}\n  {} on {}, I/O {}, working {}, tolerance {}\n", s.implementation, s.op, s.spec, s.dtype, s.working, s.tolerance);
  std::int64_t assigned = 0, covered = 0;
  for (const auto& r : p.assigned) assigned += r.second - r.first;
  for (const auto& r : p.coverage) covered += r.second - r.first;
  out += fmt::format("  positions {} ({} positions{}), {} head(s), seed {}, {} tokens per call\n", s.positions, s.position_count,
                     p.whole_set() ? "" : fmt::format("; this part: {}", ranges_text(p.assigned)), s.heads, s.seed, s.tokens_per_call);
  const bucket_stats t = p.total();
  out += fmt::format("  {} elements checked at {} of {} positions\n", t.count, covered, assigned);
  out += fmt::format("reference: binary64, correctly rounded; against MPFR at 160 bits on {} sampled positions: worst {:.3g} binary64 ulp\n",
                     p.sample_positions, p.sample_worst_ulps);
  out += fmt::format("\nerrors in ulps of {} at each row's scale (its largest exact value); fraction: of the gate's bound\n", s.dtype);
  out += fmt::format("  max {:.4g}, RMS {:.4g}, p99 <= {:.3g}; worst fraction of the bound {:.4g}\n", t.max_ulps, t.rms_ulps(), t.p99_ulps(), t.max_fraction);
  if (!t.worst_ulps.empty()) {
    const auto& w = t.worst_ulps;
    out += fmt::format("  worst element: {}: got {:.9g}, exact {:.17g}, error {:.4g} ulp ({:.4g} of its bound {:.3g})\n", where(s, w), w.got, w.exact,
                       w.ulps, w.fraction, w.bound);
  }
  const auto& wf = t.worst_fraction;
  if (!wf.empty() && std::tie(wf.position, wf.head, wf.index) != std::tie(t.worst_ulps.position, t.worst_ulps.head, t.worst_ulps.index)) {
    const auto& w = t.worst_fraction;
    out += fmt::format("  nearest its bound: {}: got {:.9g}, exact {:.17g}, error {:.4g} ulp ({:.4g} of its bound {:.3g})\n", where(s, w), w.got, w.exact,
                       w.ulps, w.fraction, w.bound);
  }
  if (t.nonfinite) out += fmt::format("  {} element(s) not finite where the exact value is (or the other way)\n", t.nonfinite);

  out += "\nby position decade:\n" + fmt::format(fmt::runtime(text_table_head), "positions", "elements", "max ulp", "RMS ulp", "p99 ulp", "max/bound", "worst at");
  for (int d = 0; d < decade_count; ++d) {
    bucket_stats row;
    for (std::int64_t b = 0; b < s.band_count(); ++b) row.merge(p.bucket(d, b));
    if (row.count) out += row_of(decade_label(d), row);
  }
  out += "\nby frequency band:\n" + fmt::format(fmt::runtime(text_table_head), "band", "elements", "max ulp", "RMS ulp", "p99 ulp", "max/bound", "worst at");
  for (std::int64_t b = 0; b < s.band_count(); ++b) {
    bucket_stats col;
    for (int d = 0; d < decade_count; ++d) col.merge(p.bucket(d, b));
    if (col.count) out += row_of(band_label(s, b), col);
  }
  out += "\nmax ulp by decade (rows) and band (columns):\n";
  out += fmt::format("| {:<14} |", "positions");
  for (std::int64_t b = 0; b < s.band_count(); ++b) out += fmt::format(" {:>9} |", b < static_cast<std::int64_t>(s.bands.size()) ? fmt::format("{}-{}", s.bands[b].first, s.bands[b].second) : "unrot.");
  out += "\n";
  for (int d = 0; d < decade_count; ++d) {
    bool any = false;
    for (std::int64_t b = 0; b < s.band_count(); ++b) any = any || p.bucket(d, b).count;
    if (!any) continue;
    out += fmt::format("| {:<14} |", decade_label(d));
    for (std::int64_t b = 0; b < s.band_count(); ++b) out += fmt::format(" {:>9.3g} |", p.bucket(d, b).max_ulps);
    out += "\n";
  }

  out += "\n";
  const char* names[] = {"1 ulp", "10 ulps", "100 ulps"};
  for (std::size_t k = 0; k < p.first_over.size(); ++k)
    out += fmt::format("first position with an error above {}: {}\n", names[k], p.first_over[k] < 0 ? std::string("none") : std::to_string(p.first_over[k]));
  // Where positions held in the I/O or working dtype stop being distinct (a kernel that keeps them
  // there merges neighbours from this point): said against the sweep's reach.
  const std::int64_t last = position_set::parse(s.positions).last();
  for (const auto& [dtype, role] : {std::pair{s.dtype, "the I/O dtype"}, std::pair{s.working, "the working dtype"}}) {
    if (role[4] == 'w' && dtype == s.dtype) continue;  // said once when they are one dtype
    const std::int64_t merged = first_merged_position(dtype);
    out += fmt::format("positions kept in {} ({}) stop being distinct at {}, which rounds to {}: {}\n", dtype, role, merged, merged - 1,
                       merged <= last ? "within the sweep" : fmt::format("beyond the sweep (it ends at {})", last));
  }
  for (const auto& f : p.failed_calls) out += "failed call: " + f + "\n";
  if (!p.complete()) out += fmt::format("not covered: {} of the {} positions asked for (their calls failed)\n", assigned - covered, assigned);
  return out;
}

}  // namespace pe::audit
