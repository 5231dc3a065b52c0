// Frequency tables computed once per process and shared: the MPFR powers behind a law's omegas cost more than the ops that read them.
#pragma once
#include <concepts>
#include <memory>
#include <string>

namespace pe {

// A frequency law that names itself: cache_key() spells every input its omega(i) and
// attention_factor() read, so two laws with the same key have the same frequencies.
template <class Freq>
concept keyed_frequency_law = requires(const Freq& f) {
  { f.cache_key() } -> std::convertible_to<std::string>;
};

// The value stored under key, or null. Thread-safe.
std::shared_ptr<const void> frequency_cache_find(const std::string& key);
// Stores value under key. Thread-safe. Bounded: once the cache holds frequency_cache_entries
// values it is emptied and starts again (a gate run draws thousands of specs).
void frequency_cache_store(const std::string& key, std::shared_ptr<const void> value);
inline constexpr std::size_t frequency_cache_entries = 4096;

// compute() once per key: the key must name the value's kind as well as the law (the callers
// prefix it), since one key maps to one type.
template <class V, class Compute>
std::shared_ptr<const V> cached(const std::string& key, const Compute& compute) {
  if (auto hit = frequency_cache_find(key)) return std::static_pointer_cast<const V>(hit);
  auto value = std::make_shared<const V>(compute());
  frequency_cache_store(key, value);
  return value;
}

}  // namespace pe
