// The progress line (see progress.hpp).
#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace pecheck {

namespace {
// A job shorter than this never shows a line; a shown one is redrawn at most this often.
constexpr auto quiet_for = std::chrono::seconds(1);
constexpr auto redraw_every = std::chrono::milliseconds(100);
}  // namespace

progress_line::progress_line(std::int64_t total, std::string unit)
    : total_(total), unit_(std::move(unit)), terminal_(isatty(STDERR_FILENO) == 1), start_(clock::now()) {}

progress_line::~progress_line() {
  if (shown_) fmt::print(stderr, "\r\033[K");  // erase the line
}

void progress_line::update(std::int64_t done) {
  if (!terminal_ || total_ <= 0) return;
  const auto now = clock::now();
  if (now - start_ < quiet_for || (shown_ && now - last_ < redraw_every)) return;
  shown_ = true;
  last_ = now;
  fmt::print(stderr, "\reval: {}% ({}/{} {})\033[K", done * 100 / total_, done, total_, unit_);
  std::fflush(stderr);
}

}  // namespace pecheck
