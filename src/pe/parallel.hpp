// Loops over positions split across threads: the worker count (--threads) and a parallel for over index ranges.
#pragma once
#include <cstdint>
#include <functional>

namespace pe {

// Threads the fast paths may use: the core count unless set (pecheck's --threads), at least 1.
int worker_threads();
void set_worker_threads(int n);

// Runs body(begin, end, worker) over [0, n), split into at most worker_threads() contiguous
// ranges of at least min_per_range items each; worker is the range's index, below
// worker_threads(). One range runs on the calling thread. body must be thread-safe (no MPFR:
// its precision is process-wide here). The first exception a range throws is rethrown after
// every range has ended.
void parallel_ranges(std::int64_t n, std::int64_t min_per_range, const std::function<void(std::int64_t, std::int64_t, int)>& body);

}  // namespace pe
