// The tables a bias launch reads, computed on the host from pecheck's reference: ALiBi's slopes and T5's bucket breakpoints.
#pragma once
#include <cstdint>
#include <limits>
#include <vector>

#include "pe/scheme.hpp"
#include "pe/schemes/alibi.hpp"
#include "pe/spec.hpp"

namespace pe::kernels {

// ALiBi's slope per head, 2^e correctly rounded to binary64 (alibi_slopes from 192 bits).
inline std::vector<double> alibi_slope_table(const pe::spec& s) { return pe::alibi_slopes<double>(s); }

// A relative-bucket scheme's bucket (T5's) as a step function of the distance n on each side of
// the query, read off the reference's own bucket hook, so bucketing in the kernel is exact and
// takes no logarithm: entry e says that from starts[e] on the bucket is buckets[e]. First the
// side of keys at or before the query (rel = -n, n in [0, 2^63]: INT64_MIN included), then that
// of keys after it (rel = n, n in [1, 2^63 - 1]). Each side is searched for where the bucket
// changes, which finds every change because the bucket never falls as n grows within a side
// (t5.bucket_monotonic); the tests compare the kernel's buckets with the hook's directly.
struct bucket_tables {
  std::vector<std::uint64_t> starts;
  std::vector<std::int64_t> buckets;
  std::int64_t before_count = 0, after_count = 0;

  static bucket_tables of(const pe::spec& s) {
    const auto& bucket = pe::behaviour_of(s).bucket;
    bucket_tables t;
    // Appends one side's steps over n in [first, last]; returns how many.
    const auto side = [&](std::uint64_t first, std::uint64_t last, auto rel_of) {
      const auto at = [&](std::uint64_t n) { return bucket(s, rel_of(n)); };
      const std::int64_t final_bucket = at(last);
      std::uint64_t from = first;
      std::int64_t b = at(first), count = 1;
      t.starts.push_back(from), t.buckets.push_back(b);
      while (b != final_bucket) {
        // The smallest n in (from, last] whose bucket is not b: at(lo) == b, at(hi) != b.
        std::uint64_t lo = from, hi = last;
        while (hi - lo > 1) {
          const std::uint64_t mid = lo + (hi - lo) / 2;
          (at(mid) == b ? lo : hi) = mid;
        }
        from = hi, b = at(hi), ++count;
        t.starts.push_back(from), t.buckets.push_back(b);
      }
      return count;
    };
    constexpr std::uint64_t two_63 = std::uint64_t{1} << 63;
    t.before_count = side(0, two_63, [](std::uint64_t n) {
      return n == two_63 ? std::numeric_limits<std::int64_t>::min() : -static_cast<std::int64_t>(n);
    });
    t.after_count = side(1, two_63 - 1, [](std::uint64_t n) { return static_cast<std::int64_t>(n); });
    return t;
  }
};

}  // namespace pe::kernels
