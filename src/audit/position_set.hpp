// The positions an audit sweeps: a contiguous range or a log-spaced set, addressed by index, and a shard's share of them.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pe::audit {

// Every position of a:b (a <= p < b), or log:a:b:N, N positions spaced evenly in log p from a to b
// (both included; from 0, the point 0 and N - 1 from 1 to b), each rounded to the nearest integer,
// duplicates dropped (so near 0 there may be fewer than N). Numbers may be written 2^k; positions
// are never negative.
class position_set {
 public:
  static position_set parse(std::string_view text);  // input_error naming --positions and the fault
  const std::string& text() const { return text_; }  // canonical: numbers in decimal
  std::int64_t size() const;
  std::int64_t at(std::int64_t index) const;
  std::int64_t last() const { return at(size() - 1); }

 private:
  std::string text_;
  std::int64_t begin_ = 0, end_ = 0;          // a range: [begin_, end_)
  std::vector<std::int64_t> listed_;          // a log set: the positions themselves
};

// Shard i of n (1-based, "--shard i/n"): the contiguous index range [begin, end) of a set of
// `size` indices it sweeps. The n shards cover every index once.
struct shard {
  std::int64_t index = 1, count = 1;
  static shard parse(std::string_view text);  // "i/n", 1 <= i <= n; input_error otherwise
  std::int64_t begin(std::int64_t size) const;
  std::int64_t end(std::int64_t size) const;
};

}  // namespace pe::audit
