// Where an implementation's NaN or infinite outputs fall, in words: the diagnosis names that pattern (a NaN at position 0,
// angles that overflow f16) where no convention of the neighbourhood computes a NaN.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pe::audit {

// One token of the diagnosis's calls: its position (the largest of its axes' magnitudes) and
// whether every output element of it is finite.
struct token_finiteness {
  std::int64_t position = 0;
  bool finite = true;
};

// "" when every token is finite. Else, the first pattern that holds: non-finite at position 0 only;
// non-finite exactly from a position on where angles p * w (w the largest frequency, 0: none) or
// the positions themselves first overflow to infinity in a narrow format; else how many of the
// elements are and at which positions (none named when `tokens` is empty: the op's outputs are
// not per token).
std::string non_finite_words(const std::vector<token_finiteness>& tokens, double largest_frequency, std::int64_t non_finite,
                             std::int64_t elements);

}  // namespace pe::audit
