// The progress line (see progress.hpp).
#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

namespace pecheck {

namespace {
// A job shorter than this never shows a line; a shown one is redrawn at most this often.
// PECHECK_PROGRESS_AFTER_MS sets the first (tests show a line at once; a slow terminal can wait).
std::chrono::milliseconds quiet_for() {
  const char* after = std::getenv("PECHECK_PROGRESS_AFTER_MS");
  return std::chrono::milliseconds(after != nullptr && *after != '\0' ? std::strtoll(after, nullptr, 10) : 1000);
}
constexpr auto redraw_every = std::chrono::milliseconds(100);
}  // namespace

progress_line::progress_line(std::string label, std::int64_t total, std::string unit)
    : label_(std::move(label)), total_(total), unit_(std::move(unit)), terminal_(isatty(STDERR_FILENO) == 1), start_(clock::now()) {}

progress_line::~progress_line() {
  if (shown_) fmt::print(stderr, "\r\033[K");  // erase the line
}

void progress_line::update(std::int64_t done) {
  if (!terminal_ || total_ <= 0) return;
  const auto now = clock::now();
  if (now - start_ < quiet_for() || (shown_ && now - last_ < redraw_every)) return;
  shown_ = true;
  last_ = now;
  fmt::print(stderr, "\r{}: {}% ({}/{} {})\033[K", label_, done * 100 / total_, done, total_, unit_);
  std::fflush(stderr);
}

}  // namespace pecheck
