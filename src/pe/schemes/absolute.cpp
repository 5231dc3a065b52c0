// Registry entries of the absolute encodings, and the learned table's portable generator.
#include "pe/schemes/absolute.hpp"

#include <bit>
#include <mutex>
#include <unordered_map>

#include "pe/mp.hpp"
#include "pe/limits.hpp"
#include "pe/registry.hpp"
#include "pe/scheme.hpp"

namespace pe {
namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

namespace {

// The MPFR Box-Muller evaluation of one entry (learned_entry caches it).
double learned_entry_uncached(std::uint64_t seed, std::int64_t index, double init_std) {
  const std::uint64_t stream = splitmix64(seed);
  const std::uint64_t h1 = splitmix64(stream + 2 * static_cast<std::uint64_t>(index));
  const std::uint64_t h2 = splitmix64(stream + 2 * static_cast<std::uint64_t>(index) + 1);
  mp_working_bits scope(128);  // 128-bit intermediates: the final rounding to binary64 is the only one that shows
  const mp_real u1 = ldexp(mp_real((h1 >> 11) + 1), -53);  // (0, 1]: ln u1 is finite
  const mp_real u2 = ldexp(mp_real(h2 >> 11), -53);        // [0, 1)
  const mp_real z = sqrt(-2 * log(u1)) * cos(two_pi() * u2);
  return static_cast<double>(mp_real(init_std) * z);
}

// Entries already evaluated in this process, by (seed, index, init_std's bits): the properties
// and the gate rebuild the same seeded tables on every call, and each entry costs a 128-bit
// logarithm and cosine. Bounded: emptied once it holds 2^20 entries (24 MiB).
struct entry_key {
  std::uint64_t seed;
  std::int64_t index;
  std::uint64_t std_bits;
  bool operator==(const entry_key&) const = default;
};
struct entry_key_hash {
  std::size_t operator()(const entry_key& k) const { return splitmix64(k.seed ^ splitmix64(static_cast<std::uint64_t>(k.index) ^ splitmix64(k.std_bits))); }
};
std::mutex entries_mutex;
std::unordered_map<entry_key, double, entry_key_hash>& evaluated_entries() {
  static std::unordered_map<entry_key, double, entry_key_hash> entries;
  return entries;
}

}  // namespace

double learned_entry(std::uint64_t seed, std::int64_t index, double init_std) {
  const entry_key key{seed, index, std::bit_cast<std::uint64_t>(init_std)};
  {
    const std::lock_guard lock(entries_mutex);
    const auto it = evaluated_entries().find(key);
    if (it != evaluated_entries().end()) return it->second;
  }
  const double value = learned_entry_uncached(seed, index, init_std);
  const std::lock_guard lock(entries_mutex);
  if (evaluated_entries().size() >= (std::size_t{1} << 20)) evaluated_entries().clear();
  evaluated_entries().emplace(key, value);
  return value;
}

std::vector<double> learned_entries(std::uint64_t seed, std::int64_t first, std::int64_t count, double init_std) {
  // Tables are drawn at offsets that follow each other (shaw's value table after its key table):
  // first + count is how many entries the spec's tables hold so far, each a 128-bit log and cosine.
  check_limit(limit::table_work, static_cast<std::uint64_t>(first) + static_cast<std::uint64_t>(count), "seeded table entries");
  std::vector<double> out;
  out.reserve(static_cast<size_t>(count));
  for (std::int64_t e = 0; e < count; ++e) out.push_back(learned_entry(seed, first + e, init_std));
  return out;
}

namespace {

std::vector<scheme_info> absolute_infos() {
  std::vector<scheme_info> out;
  const auto dim = [](std::int64_t min) {
    return integer_param("dim", "components per position vector", std::nullopt, min, max_dim);
  };
  out.push_back({"integer", "encoding",
                 "every component is the position p itself; unbounded (seed 000 option 1)",
                 {dim(1)},
                 {"encode", "attend"},
                 {}});
  out.push_back({"normalized", "encoding",
                 "every component is p / length for 0 <= p < length; depends on the sequence length (seed 000 option 2)",
                 {dim(1), integer_param("length", "sequence length the position is divided by", std::nullopt, 1)},
                 {"encode", "attend"},
                 {}});
  out.push_back({"binary", "encoding",
                 "component j is bit j of p, least significant first; unique only for p < 2^dim, "
                 "p and p + 2^dim share a code",
                 {dim(1)},
                 {"encode", "attend"},
                 {}});
  out.push_back({"learned", "encoding",
                 "a seeded N(0, init_std^2) table standing in for trained weights; p >= max_len is an error, "
                 "never a wrap",
                 {dim(1), integer_param("max_len", "rows in the table (positions 0 .. max_len-1)", std::nullopt, 1, max_table_length),
                  init_std_param(0.02, "standard deviation of the entries (GPT-2: 0.02)"), seed_param()},
                 {"encode", "attend"},
                 {}});
  out.push_back({"none", "encoding",
                 "NoPE: adds nothing; encode gives zero vectors of length dim",
                 {integer_param("dim", "length of the zero vectors", 0, 0, max_dim)},
                 {"encode", "attend"},
                 {}});
  return out;
}

// An absolute scheme: its vectors are added to x before attention's projections.
scheme_behaviour absolute(typed_hook<encode_signature> encode) {
  scheme_behaviour b;
  b.kind = scheme_kind::absolute;
  b.encode = std::move(encode);
  return b;
}

// learned(max_len) has rows 0 .. max_len-1; normalized(length) divides by length (0 <= p < length).
scheme_behaviour with_limit(scheme_behaviour b, const char* key) {
  b.position_limit = [key](const spec& s) { return s.integer(key); };
  return b;
}

scheme_behaviour none_behaviour() {
  scheme_behaviour b;
  b.kind = scheme_kind::plain;
  b.encode = typed_hook<encode_signature>::of([]<class T>(const spec& s, std::span<const std::int64_t> p) { return none_encode<T>(s, p); });
  return b;
}

const std::vector<scheme_registration> absolute_registered = [] {
  auto infos = absolute_infos();
  std::vector<scheme_behaviour> behaviours{
      absolute(typed_hook<encode_signature>::of([]<class T>(const spec& s, std::span<const std::int64_t> p) { return integer_encode<T>(s, p); })),
      with_limit(absolute(typed_hook<encode_signature>::of(
                     []<class T>(const spec& s, std::span<const std::int64_t> p) { return normalized_encode<T>(s, p); })),
                 "length"),
      absolute(typed_hook<encode_signature>::of([]<class T>(const spec& s, std::span<const std::int64_t> p) { return binary_encode<T>(s, p); })),
      with_limit(absolute(typed_hook<encode_signature>::of(
                     []<class T>(const spec& s, std::span<const std::int64_t> p) { return learned_encode<T>(s, p); })),
                 "max_len"),
      none_behaviour()};
  // The gate checks learned's encode only: its table enters the scores, where no error model is derived.
  behaviours[3].gate_gaps = {{"attend", "the learned table enters the scores; the gate's attend error model is not derived for it"}};
  std::vector<scheme_registration> out;
  // integer, normalized, binary and learned first among the absolute schemes (sinusoidal is 20);
  // none is the only plain one.
  for (size_t i = 0; i < infos.size(); ++i) out.emplace_back(10 + static_cast<int>(i), std::move(infos[i]), std::move(behaviours[i]));
  return out;
}();

}  // namespace

}  // namespace pe
