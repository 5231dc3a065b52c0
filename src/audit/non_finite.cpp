// Where the NaN or infinite outputs fall (see non_finite.hpp): the patterns a kernel's faults leave.
#include "audit/non_finite.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "pe/float_format.hpp"

namespace pe::audit {

std::string non_finite_words(const std::vector<token_finiteness>& tokens, double largest_frequency, std::int64_t non_finite,
                             std::int64_t elements) {
  if (non_finite == 0) return "";
  const std::string counted = fmt::format("{} of {} output elements are NaN or infinite", non_finite, elements);
  std::vector<std::int64_t> bad, good;
  for (const auto& t : tokens) (t.finite ? good : bad).push_back(t.position);
  if (bad.empty()) return counted;
  std::sort(bad.begin(), bad.end());
  std::sort(good.begin(), good.end());
  // A 0 / 0 or 0 * inf at the one position where an angle, a ratio or a log argument is 0.
  if (bad.back() == 0) return "NaN or infinite outputs at position 0 only";
  // A threshold: every token from the first non-finite one's position on is non-finite, every one
  // below it finite, and the threshold is where a quantity passes the format's largest finite value
  // (f16's 65504; bf16's is past any position). The angles p * w of the largest frequency first,
  // then the positions (cast to the format before the product).
  const std::int64_t first_bad = bad.front();
  const bool threshold = good.empty() || good.back() < first_bad;
  const auto below = std::lower_bound(good.begin(), good.end(), first_bad);
  const double last_good = below == good.begin() ? 0.0 : static_cast<double>(*(below - 1));
  if (threshold)
    for (const auto* f : {&binary16, &bfloat16})
      for (const auto& [scale_of, what] : {std::pair{largest_frequency, "angles p*w"}, std::pair{1.0, "positions"}}) {
        const double scale = scale_of;  // a plain name: clang 14 cannot capture a structured binding
        const auto overflows = [&](double p) { return std::isinf(round_to_format(p * scale, *f)); };
        if (scale > 0 && !overflows(last_good) && overflows(static_cast<double>(first_bad)))
          return fmt::format("{} overflow in {} (past {:g}): NaN or infinite outputs from position {} on", what, f->name, largest_finite(*f),
                             first_bad);
      }
  if (bad.front() == bad.back()) return fmt::format("{}, at position {} only", counted, bad.front());
  return fmt::format("{}, at positions {} to {}", counted, bad.front(), bad.back());
}

}  // namespace pe::audit
