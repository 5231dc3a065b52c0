// What a check's calls reached: the classes of case it drew (position bands, one token or several, one head or several, values at the I/O dtype's edges) and which an answer covered.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "gate/io.hpp"
#include "pe/ops.hpp"

namespace pe::gate {

// The largest |position| among a call's positions (rotate, encode, scale, bias, attend), distances
// (a bucket op's rel) not included; 0 for a call without any.
std::int64_t largest_position(const op_inputs& in);

// Kept by one check across its cases. A check is whole only when every class it drew was answered
// at least once: an implementation that declines every case past position 0 (or every call of
// several tokens) leaves those classes uncovered, however many of its other cases passed.
class coverage {
 public:
  // A check whose real inputs reach the implementation in `io`.
  explicit coverage(dtype io) : io_(io) {}

  // A call about to be made on `in`; answered() once it came back with outputs the check could use.
  void drawn(const op_inputs& in);
  void answered(const op_inputs& in);

  // The classes drawn that no answer covered, in band order ("positions in (2^16, 2^24]", "several tokens").
  std::vector<std::string> never_answered() const;
  // The largest position among the answered calls (0 for none, or for calls without positions).
  std::int64_t top_answered_position() const { return top_answered_; }

  // The classes of a call: its position band (by its largest |position|), its token count and,
  // for a tensor x [T, H, D], its head count and whether it holds values at the edges of `io`.
  static constexpr std::size_t class_count = 12;
  static std::vector<std::size_t> classes_of(const op_inputs& in, dtype io);
  static const char* class_name(std::size_t c);

 private:
  dtype io_;
  std::array<int, class_count> drawn_{}, answered_{};
  std::int64_t top_answered_ = 0;
};

}  // namespace pe::gate
