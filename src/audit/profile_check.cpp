// An audit profile's claims re-derived from its setup (see profile_check.hpp).
#include "audit/profile_check.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "audit/position_set.hpp"
#include "audit/sweep.hpp"
#include "pe/error.hpp"

namespace pe::audit {
namespace {

// The first index of the set at or past position `p` (the set is increasing).
std::int64_t first_index_from(const position_set& set, std::int64_t p, std::int64_t lo, std::int64_t hi) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (set.at(mid) < p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Covered positions per class (decade or octave): classes are runs of increasing positions, class
// c from class_begin(c). Each range costs a binary search per class it spans, never a walk.
template <class ClassOf, class ClassBegin>
std::vector<std::uint64_t> covered_per_class(const index_ranges& coverage, const position_set& set, int classes, ClassOf class_of,
                                             ClassBegin class_begin) {
  std::vector<std::uint64_t> out(static_cast<std::size_t>(classes), 0);
  for (const auto& [begin, end] : coverage) {
    const int first = class_of(set.at(begin)), last = class_of(set.at(end - 1));
    std::int64_t from = begin;
    for (int c = first; c <= last; ++c) {
      const std::int64_t to = c == last ? end : first_index_from(set, class_begin(c + 1), from, end);
      out[static_cast<std::size_t>(c)] += static_cast<std::uint64_t>(to - from);
      from = to;
    }
  }
  return out;
}

bool is_covered(const index_ranges& coverage, const position_set& set, std::int64_t position) {
  if (position < 0) return false;
  const std::int64_t i = first_index_from(set, position, 0, set.size());
  return i < set.size() && set.at(i) == position && range_holding(coverage, i);
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

std::string text(unsigned __int128 v) {
  if (v <= UINT64_MAX) return fmt::format("{}", static_cast<std::uint64_t>(v));
  return fmt::format("about {:.3g}", static_cast<double>(v));
}

position_set set_of(const audit_profile& p, const std::string& where) {
  try {
    return position_set::parse(p.setup.positions);
  } catch (const input_error& e) {
    throw input_error(fmt::format("{}: .positions: {}", where, e.what()));
  }
}

class claims {
 public:
  claims(const audit_profile& p, const std::string& where) : p_(p), where_(where), set_(set_of(p, where)) {}

  void check() {
    check_setup();
    check_ranges();
    const auto in_decade = covered_per_class(p_.coverage, set_, decade_count, decade_of, decade_begin);
    const auto in_octave = covered_per_class(p_.coverage, set_, octave_count, octave_of,
                                             [](int k) { return k == 0 ? std::int64_t{0} : std::int64_t{1} << (k - 1); });
    for (int d = 0; d < decade_count; ++d)
      for (std::int64_t b = 0; b < p_.setup.band_count(); ++b) check_bucket(d, b, in_decade[static_cast<std::size_t>(d)]);
    for (int k = 0; k < octave_count; ++k) check_octave(k, in_octave[static_cast<std::size_t>(k)]);
    check_first_over();
    std::uint64_t covered = 0;
    for (const auto& [begin, end] : p_.coverage) covered += static_cast<std::uint64_t>(end - begin);
    if (p_.sample_positions < 0 || static_cast<std::uint64_t>(p_.sample_positions) > covered) {
      fail(fmt::format(".mpfr_sample.positions {} for {} covered positions", p_.sample_positions, covered));
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw input_error(fmt::format("{}: {}: not what an audit of its setup measures, refused", where_, what));
  }

  void check_setup() {
    const auto& s = p_.setup;
    spec parsed = [&] {
      try {
        return parse_spec_any(s.spec);
      } catch (const spec_error& e) {
        fail(fmt::format(".spec: {}", e.what()));
      }
    }();
    if (parsed.text() != s.spec) fail(fmt::format(".spec '{}' is not canonical ('{}')", excerpt(s.spec), excerpt(parsed.text())));
    // Before the rows are derived: they are built at s.heads.
    if (s.heads < 1 || s.heads > 4096 || s.tokens_per_call < 1) fail(fmt::format(".heads {} or .tokens_per_call {}", s.heads, s.tokens_per_call));
    audit_setup derived;
    derived.op = s.op, derived.heads = s.heads;
    try {
      rows_ = sweep_rows_of(parsed, derived);
    } catch (const input_error& e) {
      fail(fmt::format(".op: {}", e.what()));
    }
    if (derived.op != s.op || derived.unit != s.unit || derived.bands != s.bands || derived.has_unrotated != s.has_unrotated) {
      fail(fmt::format(".op, .unit, .bands or .has_unrotated: the sweep of {} measures {} by {} in {} bands{}", s.spec, derived.op, derived.unit,
                       derived.bands.size(), derived.has_unrotated ? " and the unrotated dims" : ""));
    }
    if (!rows_.takes_x && s.heads != 1) fail(fmt::format(".heads {}: {} takes no x, one row a position", s.heads, s.op));
    if (set_.text() != s.positions || set_.size() != s.position_count) {
      fail(fmt::format(".positions '{}' has {} positions, not .position_count {}", excerpt(s.positions), set_.size(), s.position_count));
    }
    per_band_.assign(static_cast<std::size_t>(s.band_count()), 0);
    for (const auto b : rows_.band_of) ++per_band_[static_cast<std::size_t>(b)];
  }

  void check_ranges() const {
    for (const auto& c : p_.coverage) {
      const index_range* holder = range_holding(p_.assigned, c.first);
      if (!holder || holder->second < c.second) {
        fail(fmt::format(".coverage [{}, {}) is not within the positions assigned", c.first, c.second));
      }
    }
  }

  void check_counts(const std::string& what, std::uint64_t count, std::uint64_t nonfinite, unsigned __int128 expected) const {
    if (count != expected) fail(fmt::format("{}: {} elements, where its covered positions hold {}", what, count, text(expected)));
    if (nonfinite > count) fail(fmt::format("{}: {} non-finite of {} elements", what, nonfinite, count));
  }

  void check_record(const std::string& what, const element_record& e, int decade, std::int64_t band) const {
    if (e.empty()) fail(fmt::format("{}: missing, and the bucket has elements", what));
    if (decade_of(e.position) != decade || !is_covered(p_.coverage, set_, e.position)) {
      fail(fmt::format("{}: position {} is not a covered position of decade {}", what, e.position, decade_label(decade)));
    }
    if (e.head < 0 || e.head >= rows_.rows_per_position) fail(fmt::format("{}: head {} of {}", what, e.head, rows_.rows_per_position));
    if (e.index < 0 || e.index >= rows_.width || rows_.band_of[static_cast<std::size_t>(e.index)] != band) {
      fail(fmt::format("{}: index {} is not one of band {}", what, e.index, band));
    }
  }

  void check_bucket(int d, std::int64_t band, std::uint64_t positions) {
    const bucket_stats& st = p_.bucket(d, band);
    const std::string what = fmt::format("bucket (decade {}, band {})", decade_label(d), band);
    check_counts(what, st.count, st.nonfinite,
                 static_cast<unsigned __int128>(positions) * static_cast<std::uint64_t>(rows_.rows_per_position) * per_band_[static_cast<std::size_t>(band)]);
    std::uint64_t binned = 0;
    int top = -1;
    for (int k = 0; k < ulp_histogram::bins; ++k) {
      const auto n = st.histogram.counts[static_cast<std::size_t>(k)];
      if (n > st.count - binned) fail(fmt::format("{}: its histogram holds more than its {} elements", what, st.count));
      binned += n;
      if (n) top = k;
    }
    if (binned != st.count) fail(fmt::format("{}: its histogram holds {} of its {} elements", what, binned, st.count));
    if (st.count == 0) {
      if (!st.worst_ulps.empty() || !st.worst_fraction.empty() || st.max_ulps != 0 || st.max_fraction != 0 || st.sum_squares != 0) {
        fail(fmt::format("{}: a worst element or sum without elements", what));
      }
      return;
    }
    check_record(what + ".worst_ulps", st.worst_ulps, d, band);
    check_record(what + ".worst_fraction", st.worst_fraction, d, band);
    if (!same(st.max_ulps, st.worst_ulps.ulps) || !same(st.max_fraction, st.worst_fraction.fraction)) {
      fail(fmt::format("{}: max_ulps {} and max_fraction {} are not its worst elements' {} and {}", what, st.max_ulps, st.max_fraction,
                       st.worst_ulps.ulps, st.worst_fraction.fraction));
    }
    if (ulp_histogram::bin_of(st.max_ulps) != top) fail(fmt::format("{}: max_ulps {} is not in its histogram's top bin", what, st.max_ulps));
    // Every finite error's square is at most the largest finite one's (2^32 ulps, the cap, when
    // the maximum is not finite).
    const unsigned __int128 each = squared_units(std::isfinite(st.max_ulps) ? st.max_ulps : 0x1p32);
    const std::uint64_t finite = st.count - st.nonfinite;
    if (each == 0 ? st.sum_squares != 0 : st.sum_squares / each + (st.sum_squares % each != 0) > finite) {
      fail(fmt::format("{}: its sum of squares exceeds {} errors of at most {} ulps", what, finite, st.max_ulps));
    }
  }

  void check_octave(int k, std::uint64_t positions) const {
    const octave_stats& o = p_.octaves[static_cast<std::size_t>(k)];
    check_counts(fmt::format("octave {}", k), o.count, o.nonfinite,
                 static_cast<unsigned __int128>(positions) * static_cast<std::uint64_t>(rows_.rows_per_position) * static_cast<std::uint64_t>(rows_.width));
  }

  void check_first_over() const {
    for (std::size_t k = 0; k < first_over_ulps.size(); ++k) {
      const double t = first_over_ulps[k];
      const std::int64_t first = p_.first_over[k];
      bool crossed = false;
      for (const auto& st : p_.buckets) {
        if (st.count == 0 || st.max_ulps <= t) continue;
        crossed = true;
        if (first > st.worst_ulps.position) fail(fmt::format(".first_over.{}: {}, after an error of {} ulps at {}", t, first, st.max_ulps, st.worst_ulps.position));
      }
      if (crossed != (first >= 0)) fail(fmt::format(".first_over.{}: {}, and {} error is above {} ulps", t, first, crossed ? "an" : "no", t));
      if (first >= 0 && !is_covered(p_.coverage, set_, first)) fail(fmt::format(".first_over.{}: {} is not a covered position", t, first));
    }
  }

  const audit_profile& p_;
  const std::string& where_;
  position_set set_;
  sweep_rows rows_;
  std::vector<std::uint64_t> per_band_;
};

}  // namespace

void check_profile_claims(const audit_profile& p, const std::string& where) { claims(p, where).check(); }

}  // namespace pe::audit
