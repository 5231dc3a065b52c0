// Limits on size and work, checked before the work they bound: each has a name, a default and the flag that raises it.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "pe/error.hpp"

namespace pe {

// What an input may ask for before anything is allocated or computed. Each default is far above
// what real models need (the reason is next to the number in limits.cpp) and low enough that a
// typo is refused in well under a second and 100 MB.
enum class limit {
  values,           // values of a result held whole in memory (the table; ops that do not stream)
  streamed_values,  // values of a result streamed in chunks (csv, json, npy of encode and rotate)
  input_values,     // values of one input tensor read from a file (attend's q, k, v, x, w*)
  list,             // entries of one list on the command line (--positions, --x, --rel, ...)
  depth,            // nesting of a JSON document or a spec
  spec_length,      // characters of one spec
  dim,              // a spec's vector length (dim, rotary_dim, head dims)
  frequencies,      // frequencies of one table computed at MPFR precision
  table_work,       // multiply-adds to build a relative scheme's seeded tables (k x heads x dim)
  file_bytes,       // bytes of one file read whole (JSON configs and inputs, baselines, audit parts, golden files)
  layers,           // layers of one model (a config's num_hidden_layers, a GGUF block_count)
};

struct limit_info {
  limit id;
  std::string_view name;  // as --limit NAME=N spells it
  std::int64_t default_value;
  std::int64_t ceiling;  // the most --limit may raise it to: past it an index or a byte count overflows
  std::string_view what;
};

// Every limit, in the order of the enum.
std::span<const limit_info> limit_table();
// The limit's value now (its default unless set_limit raised or lowered it).
std::int64_t limit_value(limit l);
// "NAME=N" from --limit: throws input_error naming the problem (unknown name, N not in 1..ceiling).
void set_limit(std::string_view assignment);
// Restores every default (tests).
void reset_limits();

// A request over its limit. An input_error, so every command reports it as one line and exits 2.
struct limit_error : input_error {
  using input_error::input_error;
};
// Throws limit_error "<what>: <amount>, over the limit <name>=<value> (raise it with --limit
// <name>=N)" when amount > limit_value(l). amount saturates: pass the unsigned product where it may overflow.
void check_limit(limit l, std::uint64_t amount, std::string_view what);

// The element count of a shape, saturating at UINT64_MAX (a shape read from a file or from options
// can overflow 64 bits: check_limit must see such a product as huge, not wrapped); a negative size
// counts as 0.
inline std::uint64_t saturating_product(std::span<const std::int64_t> shape) {
  std::uint64_t n = 1;
  for (const auto d : shape) {
    const auto u = static_cast<std::uint64_t>(d < 0 ? 0 : d);
    n = u != 0 && n > UINT64_MAX / u ? UINT64_MAX : n * u;
  }
  return n;
}

}  // namespace pe
