// Loops over positions split across threads: the worker count (--threads) and a parallel for over index ranges.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

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

// parallel_ranges for the fast kernels' loops over tokens, each of items_per_token work items:
// ranges of at least about 8192 items (~0.2 ms; fewer would not pay for starting a thread), each
// with a list of its own that body(begin, end, list) appends to (the pairs the kernels declined,
// for the caller to compute in MPFR on its own thread). Returns the lists joined in token order.
template <class Item, class Body>
std::vector<Item> parallel_lists(std::int64_t tokens, std::int64_t items_per_token, const Body& body) {
  std::mutex guard;
  std::map<std::int64_t, std::vector<Item>> by_begin;  // keyed by the range's first token: no worker count read twice
  parallel_ranges(tokens, std::max<std::int64_t>(1, 8192 / std::max<std::int64_t>(1, items_per_token)), [&](std::int64_t begin, std::int64_t end, int) {
    std::vector<Item> list;
    body(begin, end, list);
    const std::lock_guard lock(guard);
    by_begin.emplace(begin, std::move(list));
  });
  std::vector<Item> joined;
  for (auto& entry : by_begin) joined.insert(joined.end(), entry.second.begin(), entry.second.end());
  return joined;
}

}  // namespace pe
