// A progress line on stderr for long commands: only on a terminal, only after a second, at most ten updates a second.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

namespace pecheck {

// "audit: 42% (440000/1048576 positions)", labelled by the command, redrawn in place with '\r' and erased when done (or
// when an error unwinds past it, so the error's line starts clean). Nothing at all when stderr
// is not a terminal: logs and tests that capture stderr see only what went wrong.
class progress_line {
 public:
  progress_line(std::string label, std::int64_t total, std::string unit);
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  ~progress_line();

  void update(std::int64_t done);

 private:
  using clock = std::chrono::steady_clock;
  std::string label_;
  std::int64_t total_;
  std::string unit_;
  bool terminal_;
  bool shown_ = false;
  clock::time_point start_, last_;
};

}  // namespace pecheck
