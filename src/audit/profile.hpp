// What an audit measured, in a form that merges exactly: per (position decade, frequency band) bucket, the
// count, max, RMS and histogram of the errors in ulps, their worst elements, and where errors first passed 1, 10, 100 ulps.
#pragma once
#include <array>
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

// Errors in ulps by bins: bin 0 holds exact answers, then eight bins per octave (edges
// 2^e (1 + j/8)) from 2^-32 to 2^40, the first and last open-ended. Counts add, so shards merge exactly.
struct ulp_histogram {
  static constexpr int lowest_octave = -32, highest_octave = 40, per_octave = 8;
  static constexpr int bins = 2 + (highest_octave - lowest_octave) * per_octave;
  static int bin_of(double ulps);
  static double upper_edge(int bin);  // the bin's largest value (+Inf for the last)
  std::array<std::uint64_t, bins> counts{};
};

// The errors of one bucket's elements.
struct bucket_stats {
  std::uint64_t count = 0, nonfinite = 0;  // elements; those whose output was not finite (or should have been)
  double max_ulps = 0, max_fraction = 0;
  // Sum of squared ulps (each capped at 2^32 ulps) in units of 2^-20, rounded per element: an
  // integer, so that sums over shards equal the sum over the whole sweep bit for bit.
  unsigned __int128 sum_squares = 0;
  element_record worst_ulps, worst_fraction;  // ties go to the earlier element (position, head, index)
  ulp_histogram histogram;

  void add(const element_record& e);
  void merge(const bucket_stats& other);
  double rms_ulps() const;  // over the finite errors
  double p99_ulps() const;  // the upper edge of the bin holding the 99th percentile (within 1/8 octave)
};

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

struct audit_profile {
  audit_setup setup;
  // The index ranges [begin, end) of the position set this profile was asked to sweep (its shard;
  // merged parts: theirs together) and those whose calls succeeded, each sorted and fused.
  std::vector<std::pair<std::int64_t, std::int64_t>> assigned, coverage;
  std::vector<bucket_stats> buckets;  // decade d, band b at d * band_count + b
  // The first position with an error above 1, 10 and 100 ulps (-1: none).
  std::array<std::int64_t, 3> first_over{-1, -1, -1};
  std::vector<std::string> failed_calls;  // "positions a..b: status: message", in position order
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
