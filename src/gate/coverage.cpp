// What a check's calls reached (see coverage.hpp).
#include "gate/coverage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace pe::gate {
namespace {

// The bands end at the widths real kernels hold positions in: 2^8 (bf16 integers end at 256),
// 2^16, 2^24 (binary32), 2^32 (uint32), 2^40 (the gate's default --max-position); the first is position 0 alone.
constexpr std::array<const char*, coverage::class_count> names = {
    "position 0", "positions in [1, 2^8]", "positions in (2^8, 2^16]", "positions in (2^16, 2^24]", "positions in (2^24, 2^32]",
    "positions in (2^32, 2^40]", "positions past 2^40", "one token", "several tokens", "one head", "several heads",
    "values at the I/O dtype's edges (subnormal, or past 2^(emax - 4))"};
constexpr std::size_t one_token = 7, several_tokens = 8, one_head = 9, several_heads = 10, edge_values = 11;

std::int64_t magnitude(std::int64_t p) { return p == std::numeric_limits<std::int64_t>::min() ? std::numeric_limits<std::int64_t>::max() : std::abs(p); }

// The largest |position| of a call over every list of positions an op takes, distances included,
// or nothing for a call without positions (inv_freq).
std::optional<std::int64_t> positions_top(const op_inputs& in) {
  if (in.pos.empty() && in.qpos.empty() && in.kpos.empty() && in.rel.empty() && in.attend.qpos.empty() && in.attend.kpos.empty()) return std::nullopt;
  std::int64_t top = largest_position(in);
  for (const auto p : in.rel) top = std::max(top, magnitude(p));
  return top;
}

// Whether x holds a value at the edges of `io`: a subnormal, or one within 2^4 of its largest
// (the gate draws them in a quarter of rotate's cases, op_draws.cpp).
bool holds_edge_values(const tensor<double>& x, dtype io) {
  const float_format& f = dtype_format(io);
  const double smallest_normal = lowest_normal(io), large = std::ldexp(1.0, f.emax - 4);
  return std::any_of(x.data.begin(), x.data.end(), [&](double v) { return (v != 0 && std::abs(v) < smallest_normal) || std::abs(v) > large; });
}

}  // namespace

std::int64_t largest_position(const op_inputs& in) {
  std::int64_t top = 0;
  for (const auto* v : {&in.pos, &in.qpos, &in.kpos, &in.attend.qpos, &in.attend.kpos})
    for (const auto p : *v) top = std::max(top, magnitude(p));
  return top;
}

std::vector<std::size_t> coverage::classes_of(const op_inputs& in, dtype io) {
  const std::int64_t axes = std::max<std::int64_t>(in.pos_axes, 1);
  const auto top = positions_top(in);
  // Tokens: the longest list of per-token positions (queries for bias and attend, distances for buckets).
  const std::size_t tokens = std::max({in.pos.size() / static_cast<std::size_t>(axes), in.qpos.size(), in.rel.size(),
                                       in.attend.qpos.size() / static_cast<std::size_t>(axes)});
  std::vector<std::size_t> out;
  if (!top) return out;  // a call without positions (inv_freq): nothing to cover
  std::size_t band = 0;
  for (const int bits : {0, 8, 16, 24, 32, 40})
    if (*top > (bits == 0 ? 0 : std::int64_t{1} << bits)) ++band;
  out.push_back(band);
  out.push_back(tokens == 1 ? one_token : several_tokens);
  if (in.x.shape.size() == 3) out.push_back(in.x.shape[1] == 1 ? one_head : several_heads);  // rotate's x [T, H, D]
  if (holds_edge_values(in.x, io)) out.push_back(edge_values);
  return out;
}

const char* coverage::class_name(std::size_t c) { return names.at(c); }

void coverage::drawn(const op_inputs& in) {
  for (const auto c : classes_of(in, io_)) ++drawn_[c];
}

void coverage::answered(const op_inputs& in) {
  for (const auto c : classes_of(in, io_)) ++answered_[c];
  top_answered_ = std::max(top_answered_, positions_top(in).value_or(0));
}

std::vector<std::string> coverage::never_answered() const {
  std::vector<std::string> out;
  for (std::size_t c = 0; c < class_count; ++c)
    if (drawn_[c] > 0 && answered_[c] == 0) out.emplace_back(names[c]);
  return out;
}

}  // namespace pe::gate
