// Accumulating, merging and (de)serialising an audit's measurements (see profile.hpp).
#include "audit/profile.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pe::audit {
namespace {

constexpr double square_unit = 0x1p-20;  // the sum's unit in ulps^2 (bucket_stats::add)

// JSON has no Inf or NaN: those numbers are written as the strings "inf", "-inf", "nan".
nlohmann::json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
double number_of(const nlohmann::json& j, const std::string& where) {
  if (j.is_number()) return j.get<double>();
  if (j == "inf") return std::numeric_limits<double>::infinity();
  if (j == "-inf") return -std::numeric_limits<double>::infinity();
  if (j == "nan") return std::numeric_limits<double>::quiet_NaN();
  throw input_error(fmt::format("{}: not a number", where));
}

// A 128-bit sum as [high, low] 64-bit words.
nlohmann::json words(unsigned __int128 v) { return {static_cast<std::uint64_t>(v >> 64), static_cast<std::uint64_t>(v)}; }

nlohmann::json record_json(const element_record& e) {
  if (e.empty()) return nullptr;
  return {{"position", e.position}, {"head", e.head}, {"index", e.index}, {"got", number(e.got)}, {"exact", number(e.exact)},
          {"bound", number(e.bound)}, {"ulps", number(e.ulps)}, {"fraction", number(e.fraction)}};
}

template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class E>
struct is_vector<std::vector<E>> : std::true_type {};
template <class T>
struct is_array : std::false_type {};
template <class E, std::size_t N>
struct is_array<std::array<E, N>> : std::true_type {};

// Whether v holds a T exactly, at every depth: nlohmann's get would convert a real to an integer
// (undefined past the integer's range: 3.9e19 as a uint64 count), a negative to an unsigned, and
// narrow a 64-bit integer, each silently.
template <class T>
bool holds(const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v.is_boolean();
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer()) return false;
    if (v.is_number_unsigned()) return v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max());
    const auto x = v.get<std::int64_t>();
    if constexpr (std::is_unsigned_v<T>) return x >= 0 && static_cast<std::uint64_t>(x) <= std::numeric_limits<T>::max();
    else return x >= std::numeric_limits<T>::min() && x <= std::numeric_limits<T>::max();
  } else if constexpr (std::is_same_v<T, std::string>) {
    return v.is_string();
  } else if constexpr (is_pair<T>::value) {
    return v.is_array() && v.size() == 2 && holds<typename T::first_type>(v[0]) && holds<typename T::second_type>(v[1]);
  } else if constexpr (is_vector<T>::value || is_array<T>::value) {
    if (!v.is_array()) return false;
    if constexpr (is_array<T>::value) {
      if (v.size() != std::tuple_size_v<T>) return false;
    }
    return std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) { return holds<typename T::value_type>(e); });
  } else {
    static_assert(sizeof(T) == 0, "holds<T>: a type the profile does not read");
  }
}

// The reader's helpers: a field of the right type or an input_error naming it.
struct reader {
  std::string where;
  const nlohmann::json& at(const nlohmann::json& j, const char* key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) throw input_error(fmt::format("{}: {}.{} is missing", where, path, key));
    return j.at(key);
  }
  template <class T>
  T get(const nlohmann::json& j, const char* key, const std::string& path) const {
    const auto& v = at(j, key, path);
    if (!holds<T>(v)) throw input_error(fmt::format("{}: {}.{} has the wrong type", where, path, key));
    return v.get<T>();
  }
  double real(const nlohmann::json& j, const char* key, const std::string& path) const {
    return number_of(at(j, key, path), fmt::format("{}: {}.{}", where, path, key));
  }
  // The counts every tally has: count, nonfinite and sum_squares (as [high, low] 64-bit words).
  template <class Tally>
  void counts(const nlohmann::json& j, const std::string& path, Tally& t) const {
    t.count = get<std::uint64_t>(j, "count", path), t.nonfinite = get<std::uint64_t>(j, "nonfinite", path);
    if (t.nonfinite > t.count) throw input_error(fmt::format("{}: {}.nonfinite is more than its count", where, path));
    const auto sq = get<std::array<std::uint64_t, 2>>(j, "sum_squares", path);
    t.sum_squares = (static_cast<unsigned __int128>(sq[0]) << 64) | sq[1];
  }
  // The array `key` of j, each element with its path.
  template <class Each>
  void each(const nlohmann::json& j, const char* key, const Each& visit) const {
    const auto& items = at(j, key, "");
    if (!items.is_array()) throw input_error(fmt::format("{}: .{} is not an array", where, key));
    for (std::size_t i = 0; i < items.size(); ++i) visit(items[i], fmt::format(".{}[{}]", key, i));
  }
  element_record record(const nlohmann::json& j, const std::string& path) const {
    element_record e;
    if (j.is_null()) return e;
    e.position = get<std::int64_t>(j, "position", path), e.head = get<std::int64_t>(j, "head", path), e.index = get<std::int64_t>(j, "index", path);
    e.got = real(j, "got", path), e.exact = real(j, "exact", path), e.bound = real(j, "bound", path);
    e.ulps = real(j, "ulps", path), e.fraction = real(j, "fraction", path);
    return e;
  }
};

}  // namespace

double ulp_histogram::upper_edge(int bin) {
  if (bin == 0) return 0;
  if (bin >= bins - 1) return std::numeric_limits<double>::infinity();
  const int k = bin - 1;
  return std::ldexp(1.0 + (k % per_octave + 1) / static_cast<double>(per_octave), lowest_octave + k / per_octave);
}

void bucket_stats::merge(const bucket_stats& o) {
  count += o.count, nonfinite += o.nonfinite, sum_squares += o.sum_squares;
  for (std::size_t b = 0; b < histogram.counts.size(); ++b) histogram.counts[b] += o.histogram.counts[b];
  if (worse(o.worst_ulps, o.worst_ulps.ulps, worst_ulps, worst_ulps.ulps)) worst_ulps = o.worst_ulps, max_ulps = o.max_ulps;
  if (worse(o.worst_fraction, o.worst_fraction.fraction, worst_fraction, worst_fraction.fraction)) worst_fraction = o.worst_fraction, max_fraction = o.max_fraction;
}

double rms_of(unsigned __int128 sum_squares, std::uint64_t finite) {
  if (finite == 0) return 0;
  return std::sqrt(static_cast<double>(sum_squares) * square_unit / static_cast<double>(finite));
}
double bucket_stats::rms_ulps() const { return rms_of(sum_squares, count - nonfinite); }

void octave_stats::merge(const octave_stats& o) {
  count += o.count, nonfinite += o.nonfinite, sum_squares += o.sum_squares;
  max_ulps = std::max(max_ulps, o.max_ulps), max_bound_ulps = std::max(max_bound_ulps, o.max_bound_ulps);
}
int octave_of(std::int64_t position) {
  return position <= 0 ? 0 : 64 - std::countl_zero(static_cast<std::uint64_t>(position));  // 1 for p = 1, k for [2^(k-1), 2^k)
}

double bucket_stats::p99_ulps() const {
  if (count == 0) return 0;
  // The smallest bin edge with at least 99 % of the elements at or below it.
  const std::uint64_t needed = count - count / 100;
  std::uint64_t seen = 0;
  for (int b = 0; b < ulp_histogram::bins; ++b) {
    seen += histogram.counts[static_cast<std::size_t>(b)];
    if (seen >= needed) return ulp_histogram::upper_edge(b);
  }
  return std::numeric_limits<double>::infinity();
}

bool worse(const element_record& a, double va, const element_record& b, double vb) {
  if (b.empty()) return !a.empty();
  if (a.empty()) return false;
  if (va != vb) return va > vb || (std::isnan(va) && !std::isnan(vb));
  return std::tie(a.position, a.head, a.index) < std::tie(b.position, b.head, b.index);
}

int decade_of(std::int64_t position) {
  if (position < 256) return 0;
  const int bits = 63 - std::countl_zero(static_cast<std::uint64_t>(position));  // floor(log2 p) >= 8
  return std::min(decade_count - 1, 1 + (bits - 8) / 4);
}
std::int64_t decade_begin(int decade) { return decade == 0 ? 0 : std::int64_t{1} << (8 + 4 * (decade - 1)); }
std::string decade_label(int decade) {
  if (decade == 0) return "0-255";
  if (decade == 1) return "256-4095";
  if (decade == 2) return "4096-65535";
  // [2^a, 2^b), the last reaching the end of int64
  return fmt::format("2^{}-2^{}", 8 + 4 * (decade - 1), decade == decade_count - 1 ? 63 : 12 + 4 * (decade - 1));
}

audit_profile::audit_profile(audit_setup s) : setup(std::move(s)), buckets(static_cast<std::size_t>(decade_count * setup.band_count())) {}

bucket_stats audit_profile::total() const {
  bucket_stats t;
  for (const auto& b : buckets) t.merge(b);
  return t;
}

const index_range* range_holding(const index_ranges& ranges, std::int64_t index) {
  const auto after = std::upper_bound(ranges.begin(), ranges.end(), index_range{index, INT64_MAX});
  return after != ranges.begin() && index < std::prev(after)->second ? &*std::prev(after) : nullptr;
}

namespace {

// Sorts ranges and fuses those that overlap or touch.
void fuse(index_ranges& ranges) {
  std::sort(ranges.begin(), ranges.end());
  index_ranges fused;
  for (const auto& r : ranges) {
    if (!fused.empty() && r.first <= fused.back().second) fused.back().second = std::max(fused.back().second, r.second);
    else fused.push_back(r);
  }
  ranges = std::move(fused);
}

// Adds [begin, end) to sorted, fused ranges: at the end (a sweep's calls come in order) in
// constant time, elsewhere by fusing again.
void add_range(index_ranges& ranges, std::int64_t begin, std::int64_t end) {
  if (begin >= end) return;
  if (ranges.empty() || begin > ranges.back().second) {
    ranges.emplace_back(begin, end);
  } else if (begin >= ranges.back().first) {
    ranges.back().second = std::max(ranges.back().second, end);
  } else {
    ranges.emplace_back(begin, end);
    fuse(ranges);
  }
}

// The first index both sorted, fused lists hold, if any: one pass over the two.
std::optional<index_range> first_overlap(const index_ranges& a, const index_ranges& b) {
  for (std::size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i].first < b[j].second && b[j].first < a[i].second) return std::pair{std::max(a[i].first, b[j].first), std::min(a[i].second, b[j].second)};
    if (a[i].second <= b[j].second) ++i;
    else ++j;
  }
  return std::nullopt;
}

void add_ranges(index_ranges& to, const index_ranges& from) {
  to.insert(to.end(), from.begin(), from.end());
  fuse(to);
}
}  // namespace

void audit_profile::assign(std::int64_t begin, std::int64_t end) { add_range(assigned, begin, end); }
void audit_profile::cover(std::int64_t begin, std::int64_t end) { add_range(coverage, begin, end); }
bool audit_profile::complete() const { return coverage == assigned; }
bool audit_profile::whole_set() const { return assigned.size() == 1 && assigned[0].first == 0 && assigned[0].second == setup.position_count; }

void audit_profile::merge(const audit_profile& o) {
  if (!(o.setup == setup)) throw input_error("audit merge: the parts are not of one audit (implementation, spec, dtype, positions, heads, seed or tokens per call differ)");
  if (const auto both = first_overlap(assigned, o.assigned)) {
    throw input_error(fmt::format("audit merge: two parts both cover positions {} to {} of the set", both->first, both->second - 1));
  }
  add_ranges(assigned, o.assigned);
  add_ranges(coverage, o.coverage);
  for (std::size_t b = 0; b < buckets.size(); ++b) buckets[b].merge(o.buckets[b]);
  for (std::size_t k = 0; k < octaves.size(); ++k) octaves[k].merge(o.octaves[k]);
  for (std::size_t k = 0; k < first_over.size(); ++k)
    if (o.first_over[k] >= 0 && (first_over[k] < 0 || o.first_over[k] < first_over[k])) first_over[k] = o.first_over[k];
  failed_calls.insert(failed_calls.end(), o.failed_calls.begin(), o.failed_calls.end());
  std::sort(failed_calls.begin(), failed_calls.end());
  sample_positions += o.sample_positions;
  sample_worst_ulps = std::max(sample_worst_ulps, o.sample_worst_ulps);
}

nlohmann::json to_json(const audit_profile& p) {
  const auto& s = p.setup;
  nlohmann::json bands = nlohmann::json::array();
  for (const auto& b : s.bands) bands.push_back({b.first, b.second});
  nlohmann::json j = {{"pecheck_audit", 1},
                      {"implementation", s.implementation},
                      {"spec", s.spec},
                      {"op", s.op},
                      {"dtype", s.dtype},
                      {"working", s.working},
                      {"tolerance", s.tolerance},
                      {"positions", s.positions},
                      {"position_count", s.position_count},
                      {"heads", s.heads},
                      {"tokens_per_call", s.tokens_per_call},
                      {"seed", s.seed},
                      {"unit", s.unit},
                      {"bands", bands},
                      {"has_unrotated", s.has_unrotated}};
  const auto ranges = [](const auto& v) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : v) out.push_back({r.first, r.second});
    return out;
  };
  j["assigned"] = ranges(p.assigned);
  j["coverage"] = ranges(p.coverage);
  nlohmann::json buckets = nlohmann::json::array();
  for (int d = 0; d < decade_count; ++d)
    for (std::int64_t b = 0; b < s.band_count(); ++b) {
      const auto& st = p.bucket(d, b);
      if (st.count == 0) continue;
      nlohmann::json histogram = nlohmann::json::array();
      for (int k = 0; k < ulp_histogram::bins; ++k)
        if (st.histogram.counts[static_cast<std::size_t>(k)]) histogram.push_back({k, st.histogram.counts[static_cast<std::size_t>(k)]});
      buckets.push_back({{"decade", d},
                         {"band", b},
                         {"count", st.count},
                         {"nonfinite", st.nonfinite},
                         {"sum_squares", words(st.sum_squares)},
                         {"max_ulps", number(st.max_ulps)},
                         {"rms_ulps", number(st.rms_ulps())},
                         {"p99_ulps", number(st.p99_ulps())},
                         {"max_fraction", number(st.max_fraction)},
                         {"worst_ulps", record_json(st.worst_ulps)},
                         {"worst_fraction", record_json(st.worst_fraction)},
                         {"histogram", histogram}});
    }
  j["buckets"] = buckets;
  nlohmann::json octaves = nlohmann::json::array();
  for (int k = 0; k < octave_count; ++k) {
    const auto& o = p.octaves[static_cast<std::size_t>(k)];
    if (o.count == 0) continue;
    octaves.push_back({{"octave", k},
                       {"count", o.count},
                       {"nonfinite", o.nonfinite},
                       {"sum_squares", words(o.sum_squares)},
                       {"max_ulps", number(o.max_ulps)},
                       {"max_bound_ulps", number(o.max_bound_ulps)}});
  }
  j["octaves"] = octaves;
  j["first_over"] = {{"1", p.first_over[0]}, {"10", p.first_over[1]}, {"100", p.first_over[2]}};
  j["failed_calls"] = p.failed_calls;
  j["mpfr_sample"] = {{"positions", p.sample_positions}, {"worst_ulps", number(p.sample_worst_ulps)}};
  return j;
}

audit_profile profile_from_json(const nlohmann::json& j, const std::string& where) {
  const reader r{where};
  if (!j.is_object() || !j.contains("pecheck_audit")) throw input_error(fmt::format("{}: not a pecheck audit profile (no pecheck_audit field)", where));
  if (r.get<int>(j, "pecheck_audit", "") != 1) throw input_error(fmt::format("{}: audit profile version {} is not 1", where, j.at("pecheck_audit").dump()));
  audit_setup s;
  s.implementation = r.get<std::string>(j, "implementation", ""), s.spec = r.get<std::string>(j, "spec", "");
  s.op = r.get<std::string>(j, "op", ""), s.dtype = r.get<std::string>(j, "dtype", ""), s.working = r.get<std::string>(j, "working", "");
  s.tolerance = r.get<std::string>(j, "tolerance", ""), s.positions = r.get<std::string>(j, "positions", "");
  s.position_count = r.get<std::int64_t>(j, "position_count", ""), s.heads = r.get<std::int64_t>(j, "heads", "");
  s.tokens_per_call = r.get<std::int64_t>(j, "tokens_per_call", ""), s.seed = r.get<std::uint64_t>(j, "seed", "");
  s.unit = r.get<std::string>(j, "unit", ""), s.has_unrotated = r.get<bool>(j, "has_unrotated", "");
  s.bands = r.get<std::vector<std::pair<std::int64_t, std::int64_t>>>(j, "bands", "");
  if (s.bands.empty() || s.bands.size() > 64) throw input_error(fmt::format("{}: .bands must list 1 to 64 bands", where));
  audit_profile p(std::move(s));
  for (const char* field : {"assigned", "coverage"}) {
    auto ranges = r.get<index_ranges>(j, field, "");
    for (const auto& c : ranges) {
      if (c.first < 0 || c.second > p.setup.position_count || c.first > c.second) {
        throw input_error(fmt::format("{}: .{} range [{}, {}) is outside the {} positions", where, field, c.first, c.second, p.setup.position_count));
      }
    }
    std::erase_if(ranges, [](const auto& c) { return c.first == c.second; });
    fuse(ranges);  // once: range by range would sort the list again for each
    (field[0] == 'a' ? p.assigned : p.coverage) = std::move(ranges);
  }
  r.each(j, "buckets", [&](const nlohmann::json& b, const std::string& path) {
    const int d = r.get<int>(b, "decade", path);
    const auto band = r.get<std::int64_t>(b, "band", path);
    if (d < 0 || d >= decade_count || band < 0 || band >= p.setup.band_count()) throw input_error(fmt::format("{}: {} names no bucket", where, path));
    auto& st = p.bucket(d, band);
    r.counts(b, path, st);
    st.max_ulps = r.real(b, "max_ulps", path), st.max_fraction = r.real(b, "max_fraction", path);
    st.worst_ulps = r.record(r.at(b, "worst_ulps", path), path + ".worst_ulps");
    st.worst_fraction = r.record(r.at(b, "worst_fraction", path), path + ".worst_fraction");
    for (const auto& [bin, n] : r.get<std::vector<std::pair<int, std::uint64_t>>>(b, "histogram", path)) {
      if (bin < 0 || bin >= ulp_histogram::bins) throw input_error(fmt::format("{}: {}.histogram has bin {}", where, path, bin));
      st.histogram.counts[static_cast<std::size_t>(bin)] = n;
    }
  });
  r.each(j, "octaves", [&](const nlohmann::json& o, const std::string& path) {
    const int k = r.get<int>(o, "octave", path);
    if (k < 0 || k >= octave_count) throw input_error(fmt::format("{}: {} names no octave", where, path));
    auto& st = p.octaves[static_cast<std::size_t>(k)];
    r.counts(o, path, st);
    st.max_ulps = r.real(o, "max_ulps", path), st.max_bound_ulps = r.real(o, "max_bound_ulps", path);
  });
  const auto& over = r.at(j, "first_over", "");
  p.first_over = {r.get<std::int64_t>(over, "1", ".first_over"), r.get<std::int64_t>(over, "10", ".first_over"), r.get<std::int64_t>(over, "100", ".first_over")};
  p.failed_calls = r.get<std::vector<std::string>>(j, "failed_calls", "");
  const auto& sample = r.at(j, "mpfr_sample", "");
  p.sample_positions = r.get<std::int64_t>(sample, "positions", ".mpfr_sample");
  p.sample_worst_ulps = r.real(sample, "worst_ulps", ".mpfr_sample");
  return p;
}

}  // namespace pe::audit
