// The worker count and parallel_ranges (parallel.hpp), on std::jthread.
#include "pe/parallel.hpp"

#include "pe/mp.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pe {
namespace {

std::atomic<int> configured{0};  // 0: the core count

}  // namespace

int worker_threads() {
  const int n = configured.load();
  if (n > 0) return n;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void set_worker_threads(int n) { configured.store(std::max(0, n)); }

void parallel_ranges(std::int64_t n, std::int64_t min_per_range, const std::function<void(std::int64_t, std::int64_t, int)>& body) {
  if (n <= 0) return;
  const std::int64_t ranges = std::clamp<std::int64_t>(n / std::max<std::int64_t>(1, min_per_range), 1, worker_threads());
  if (ranges == 1) {
    body(0, n, 0);
    return;
  }
  std::exception_ptr first;
  std::mutex guard;
  {
    std::vector<std::jthread> threads;
    for (std::int64_t r = 0; r < ranges; ++r) {
      const std::int64_t begin = n * r / ranges, end = n * (r + 1) / ranges;
      threads.emplace_back([&, begin, end, r] {
        try {
          body(begin, end, static_cast<int>(r));
        } catch (...) {
          const std::lock_guard lock(guard);
          if (!first) first = std::current_exception();
        }
        release_thread_caches();
      });
    }
  }  // the jthreads join here
  if (first) std::rethrow_exception(first);
}

}  // namespace pe
