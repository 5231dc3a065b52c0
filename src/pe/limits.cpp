// The limits' table and the process-wide values --limit sets (see limits.hpp).
#include "pe/limits.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace pe {
namespace {

constexpr std::int64_t two(int k) { return std::int64_t{1} << k; }

// The reasons behind the defaults:
// - values: a held result is kept as decimal text too (~25 bytes at binary64, up to ~20000 digits
//   at MPFR precisions): 2^22 values are ~100 MB at binary64.
// - streamed_values: one chunk is alive at a time; 2^31 values are 16 GiB of .npy, hours of work.
// - input_values: attend's inputs are JSON text (~20 bytes a value): 2^24 values are ~300 MB of
//   file, and attention over them is already minutes at 256 bits.
// - list: 10^7 positions (80 MB as int64) cover a 1M-token context ten times over.
// - depth: real specs and inputs nest at most 4 deep; recursion in printers must stay far from the stack's end.
// - spec_length: a LongRoPE spec with 2 x 64 factors is ~3 KB; frequencies listed for dim 2^16
//   are ~800 KB.
// - dim: real head dims are <= 256 and model widths <= 16384 (Llama 3 405B); 2^16 leaves 4x.
// - frequencies: one MPFR frequency with its fraction of a turn costs ~25 us (measured: 472905
//   at 256 bits in 12.3 s): 2^15 of them (dim 2^16) take under a second.
// - table_work: shaw/txl/deberta draw k x heads x dim seeded values (plus MPFR sinusoids for txl):
//   2^26 is a few seconds; real models have k <= 512, heads <= 128, dim <= 256 (2^24).
// - file_bytes: the largest file read whole is an --input of input_values values as JSON text
//   (~20 bytes a value: 320 MB at 2^24); 2^29 bytes (512 MiB) holds it, real configs are KB and
//   the golden tree 5 MB. Before it, /dev/zero read until memory ran out.
// - layers: the deepest published models have 126 layers (Llama 3.1 405B); each layer is an entry
//   in memory and a number in spec from-hf/from-gguf's JSON, so 2^12 leaves 32x and a block_count
//   of 10^7 (78 MB of JSON) is refused.
// The ceilings keep index products (positions x dim, values x bytes) inside 64 bits.
constexpr std::array<limit_info, 11> table{{
    {limit::values, "values", two(22), two(40), "values held in memory"},
    {limit::streamed_values, "streamed_values", two(31), two(50), "values streamed"},
    {limit::input_values, "input_values", two(24), two(40), "values in one input"},
    {limit::list, "list", 10'000'000, two(40), "entries in one list"},
    {limit::depth, "depth", 32, 4096, "nesting depth"},
    {limit::spec_length, "spec_length", two(20), two(30), "characters of a spec"},
    {limit::dim, "dim", two(16), two(20), "dim"},
    {limit::frequencies, "frequencies", two(15), two(30), "frequencies at MPFR precision"},
    {limit::table_work, "table_work", two(26), two(50), "values in seeded tables"},
    {limit::file_bytes, "file_bytes", two(29), two(40), "bytes of a file read whole"},
    {limit::layers, "layers", two(12), two(24), "layers of a model"},
}};

// Atomic: the gate and the audit read limits from several threads (set once, before any work).
struct current_values {
  std::array<std::atomic<std::int64_t>, table.size()> v;
  current_values() {
    for (std::size_t i = 0; i < table.size(); ++i) v[i] = table[i].default_value;
  }
};
std::array<std::atomic<std::int64_t>, table.size()>& values() {
  static current_values current;
  return current.v;
}

}  // namespace

std::span<const limit_info> limit_table() { return table; }

std::int64_t limit_value(limit l) { return values()[static_cast<std::size_t>(l)].load(std::memory_order_relaxed); }

void set_limit(std::string_view assignment) {
  const auto eq = assignment.find('=');
  const std::string_view name = assignment.substr(0, eq);
  std::vector<std::string_view> names;
  for (const auto& info : table) names.push_back(info.name);
  const auto* info = std::find_if(table.begin(), table.end(), [&](const limit_info& i) { return i.name == name; });
  if (eq == std::string_view::npos || info == table.end()) {
    throw input_error(fmt::format("--limit '{}': give NAME=N with NAME one of {}", assignment, fmt::join(names, ", ")));
  }
  const std::string_view number = assignment.substr(eq + 1);
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() || n < 1 || n > info->ceiling) {
    throw input_error(fmt::format("--limit '{}': {} must be an integer in 1..{}", assignment, name, info->ceiling));
  }
  values()[static_cast<std::size_t>(info->id)] = n;
}

void reset_limits() {
  for (std::size_t i = 0; i < table.size(); ++i) values()[i] = table[i].default_value;
}

void check_limit(limit l, std::uint64_t amount, std::string_view what) {
  const std::int64_t value = limit_value(l);
  if (amount <= static_cast<std::uint64_t>(value)) return;
  const auto& info = table[static_cast<std::size_t>(l)];
  throw limit_error(fmt::format("{}: {}, over the limit {}={} (raise it with --limit {}=N)", what, amount, info.name, value, info.name));
}

}  // namespace pe
