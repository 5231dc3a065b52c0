// The process-wide frequency cache (frequency_cache.hpp): a map under a mutex.
#include "pe/frequency_cache.hpp"

#include <mutex>
#include <unordered_map>

namespace pe {
namespace {

std::mutex cache_mutex;
std::unordered_map<std::string, std::shared_ptr<const void>>& cache() {
  static std::unordered_map<std::string, std::shared_ptr<const void>> values;
  return values;
}

}  // namespace

std::shared_ptr<const void> frequency_cache_find(const std::string& key) {
  const std::lock_guard lock(cache_mutex);
  const auto it = cache().find(key);
  return it == cache().end() ? nullptr : it->second;
}

void frequency_cache_store(const std::string& key, std::shared_ptr<const void> value) {
  const std::lock_guard lock(cache_mutex);
  if (cache().size() >= frequency_cache_entries) cache().clear();
  cache()[key] = std::move(value);
}

}  // namespace pe
