// What an audit measured, in a form that merges exactly: per (position decade, frequency band) bucket, the
// count, max, RMS and histogram of the errors in ulps, their worst elements, and where errors first passed 1, 10, 100 ulps.
#pragma once
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pe::audit {

// One element: where it is, what the implementation gave, the exact value, and its error.
struct element_record {
  std::int64_t position = -1, head = 0, index = 0;  // index: the dim (rotate) or the component (encode)
  double got = 0, exact = 0, bound = 0;
  double ulps = 0;      // |got - exact| in ulps of the I/O dtype at the row's scale (+Inf: not finite)
  double fraction = 0;  // |got - exact| / the gate's bound
  bool empty() const { return position < 0; }
};

// The squared-error sum's term for an error in ulps: the error rounded to a multiple of 2^-10 ulp
// (capped at 2^32 ulps) squared, an integer in units of 2^-20 ulp^2, so that sums over shards
// equal the sum over the whole sweep bit for bit.
inline unsigned __int128 squared_units(double ulps) {
  const auto fixed = static_cast<std::uint64_t>(std::min(ulps, 0x1p32) * 0x1p10 + 0.5);  // below 2^42
  return static_cast<unsigned __int128>(fixed) * fixed;
}
// The RMS in ulps of `finite` errors whose squared_units add up to sum_squares.
double rms_of(unsigned __int128 sum_squares, std::uint64_t finite);

// Errors in ulps by bins: bin 0 holds exact answers, then eight bins per octave (edges
// 2^e (1 + j/8)) from 2^-32 to 2^40, the first and last open-ended. Counts add, so shards merge exactly.
struct ulp_histogram {
  static constexpr int lowest_octave = -32, highest_octave = 40, per_octave = 8;
  static constexpr int bins = 2 + (highest_octave - lowest_octave) * per_octave;
  static int bin_of(double ulps) {
    if (ulps == 0) return 0;
    if (!(ulps < 0x1p40)) return bins - 1;  // also NaN and +Inf
    if (ulps < 0x1p-32) return 1;
    // A normal double in [2^-32, 2^40): its biased exponent and the top three bits of its
    // significand name the octave and the eighth within it.
    const auto bits = std::bit_cast<std::uint64_t>(ulps);
    const int octave = static_cast<int>(bits >> 52) - 1023, eighth = static_cast<int>((bits >> 49) & 7);
    return 1 + (octave - lowest_octave) * per_octave + eighth;
  }
  static double upper_edge(int bin);  // the bin's largest value (+Inf for the last)
  std::array<std::uint64_t, bins> counts{};
};

// Whether element a is worse than b by their values va, vb (larger; ties to the earlier element).
bool worse(const element_record& a, double va, const element_record& b, double vb);

// The errors of one bucket's elements.
struct bucket_stats {
  std::uint64_t count = 0, nonfinite = 0;  // elements; those whose output was not finite (or should have been)
  double max_ulps = 0, max_fraction = 0;
  unsigned __int128 sum_squares = 0;  // of squared_units
  element_record worst_ulps, worst_fraction;  // ties go to the earlier element (position, head, index)
  ulp_histogram histogram;

  // An element in any order.
  void add(const element_record& e) {
    count_in(e.ulps);
    if (worse(e, e.ulps, worst_ulps, worst_ulps.ulps)) worst_ulps = e, max_ulps = e.ulps;
    if (worse(e, e.fraction, worst_fraction, worst_fraction.fraction)) worst_fraction = e, max_fraction = e.fraction;
  }
  // The sweep's hot path, for elements that come in increasing (position, head, index) order (a tie
  // then keeps the earlier one): the error in ulps and as a fraction of the bound, and `record()`
  // to make the element's record, called only where it is a new worst.
  template <class Record>
  void add_in_order(double ulps, double fraction, const Record& record) {
    count_in(ulps);
    const bool first = worst_ulps.empty();
    if (first || ulps > max_ulps || (std::isnan(ulps) && !std::isnan(max_ulps))) worst_ulps = record(), max_ulps = ulps;
    if (first || fraction > max_fraction || (std::isnan(fraction) && !std::isnan(max_fraction))) worst_fraction = record(), max_fraction = fraction;
  }
  // add_in_order for a finite error `err` of `ulps` (whose squared_units are `squared`, shared with
  // the sweep's per-octave tally) and bound `bound`: the fraction err / bound is divided out only
  // where it may be a new worst (a multiply first, with a margin for its rounding, so the worst
  // found is the same as dividing every time).
  template <class Record>
  void add_error_in_order(double err, double ulps, unsigned __int128 squared, double bound, const Record& record) {
    count_finite(ulps, squared);
    const bool first = worst_ulps.empty();
    if (first || ulps > max_ulps) worst_ulps = record(ulps, fraction_of(err, bound)), max_ulps = ulps;
    if (first || err > max_fraction * bound * (1 - 0x1p-50)) {
      const double fraction = fraction_of(err, bound);
      if (first || fraction > max_fraction) worst_fraction = record(ulps, fraction), max_fraction = fraction;
    }
  }
  static double fraction_of(double err, double bound) { return bound > 0 ? err / bound : (err > 0 ? INFINITY : 0); }
  // count, nonfinite, sum_squares and the histogram.
  void count_in(double ulps) {
    if (std::isfinite(ulps)) return count_finite(ulps, squared_units(ulps));
    ++count, ++nonfinite;
    ++histogram.counts[static_cast<std::size_t>(ulp_histogram::bin_of(ulps))];
  }
  void count_finite(double ulps, unsigned __int128 squared) {
    ++count;
    sum_squares += squared;
    ++histogram.counts[static_cast<std::size_t>(ulp_histogram::bin_of(ulps))];
  }
  void merge(const bucket_stats& other);
  double rms_ulps() const;  // over the finite errors
  double p99_ulps() const;  // the upper edge of the bin holding the 99th percentile (within 1/8 octave)
};

// One octave of positions, for the error-versus-position picture: max and RMS error in ulps and the
// largest bound in the same ulps.
struct octave_stats {
  std::uint64_t count = 0, nonfinite = 0;
  double max_ulps = 0, max_bound_ulps = 0;
  unsigned __int128 sum_squares = 0;
  void merge(const octave_stats& o);
  double rms_ulps() const { return rms_of(sum_squares, count - nonfinite); }
};
// Octave 0 holds position 0; octave k, positions [2^(k-1), 2^k).
constexpr int octave_count = 64;
int octave_of(std::int64_t position);

// The errors in ulps whose first position a profile records (audit_profile::first_over).
constexpr std::array<double, 3> first_over_ulps{1, 10, 100};

// What was audited; two parts merge only when these agree.
struct audit_setup {
  std::string implementation, spec, op, dtype, working, tolerance, positions;
  std::int64_t heads = 0, tokens_per_call = 0, position_count = 0;
  std::uint64_t seed = 0;
  // The frequency bands: band b holds units [first, last] (pairs of the plan or phases, or an
  // encoding's components); a last band of `unit` "unrotated" holds the dims no pair turns.
  std::string unit;  // "pair" or "component"
  std::vector<std::pair<std::int64_t, std::int64_t>> bands;
  bool has_unrotated = false;
  std::int64_t band_count() const { return static_cast<std::int64_t>(bands.size()) + (has_unrotated ? 1 : 0); }
  bool operator==(const audit_setup&) const = default;
};

// Position decades: 0-255, then [2^(8+4k), 2^(12+4k)) for k = 0..13, the last reaching 2^64.
constexpr int decade_count = 15;
int decade_of(std::int64_t position);
std::int64_t decade_begin(int decade);
std::string decade_label(int decade);

// Index ranges [begin, end) of a position set, sorted and fused (none overlaps or touches another).
using index_range = std::pair<std::int64_t, std::int64_t>;
using index_ranges = std::vector<index_range>;
// The range of `ranges` (sorted and fused) that holds `index`, or nullptr: a binary search.
const index_range* range_holding(const index_ranges& ranges, std::int64_t index);

struct audit_profile {
  audit_setup setup;
  // The index ranges of the position set this profile was asked to sweep (its shard; merged parts:
  // theirs together) and those whose calls succeeded.
  index_ranges assigned, coverage;
  std::vector<bucket_stats> buckets;  // decade d, band b at d * band_count + b
  std::vector<octave_stats> octaves = std::vector<octave_stats>(octave_count);
  // The first position with an error above each of first_over_ulps (-1: none).
  std::array<std::int64_t, 3> first_over{-1, -1, -1};
  std::vector<std::string> failed_calls;  // "positions a..b: status: message", sorted as text (merged parts agree)
  // The binary64 reference against MPFR on a sample of positions: how many, and the worst error
  // in binary64 ulps (at most 1/2: it is correctly rounded).
  std::int64_t sample_positions = 0;
  double sample_worst_ulps = 0;

  explicit audit_profile(audit_setup s = {});
  bucket_stats& bucket(int decade, std::int64_t band) { return buckets[static_cast<std::size_t>(decade * setup.band_count() + band)]; }
  const bucket_stats& bucket(int decade, std::int64_t band) const {
    return buckets[static_cast<std::size_t>(decade * setup.band_count() + band)];
  }
  bucket_stats total() const;  // every bucket merged
  void assign(std::int64_t begin, std::int64_t end);
  void cover(std::int64_t begin, std::int64_t end);
  bool complete() const;        // every assigned position covered
  bool whole_set() const;       // the assigned positions are the whole set
  // Adds another part of the same audit (input_error when the setups differ or the parts overlap).
  void merge(const audit_profile& other);
};

nlohmann::json to_json(const audit_profile& p);
// The profile a JSON file holds; input_error naming `where` and the field for anything malformed.
audit_profile profile_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace pe::audit
