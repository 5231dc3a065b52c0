// Temporary file, then rename (see atomic_file.hpp).
#include "cli/atomic_file.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pecheck {
namespace {

// A signal that ends the process while a file is being written (Ctrl-C during a long eval
// --output) removes its temporary too, then ends the process as the signal would have. One file
// at a time: pecheck writes its files one after another. A fixed buffer, as the handler may only
// call async-signal-safe functions (unlink, sigaction, raise).
constexpr std::array<int, 3> ending_signals{SIGINT, SIGTERM, SIGHUP};
char pending_temp[4096];
std::array<struct sigaction, 3> previous_actions;

extern "C" void remove_pending_temp(int sig) {
  if (pending_temp[0] != '\0') unlink(pending_temp);
  for (std::size_t k = 0; k < ending_signals.size(); ++k) sigaction(ending_signals[k], &previous_actions[k], nullptr);
  raise(sig);
}

void guard_temp(const std::string& temp) {
  if (pending_temp[0] != '\0' || temp.size() >= sizeof pending_temp) return;
  std::memcpy(pending_temp, temp.c_str(), temp.size() + 1);
  struct sigaction action {};
  action.sa_handler = remove_pending_temp;
  sigemptyset(&action.sa_mask);
  for (std::size_t k = 0; k < ending_signals.size(); ++k) {
    sigaction(ending_signals[k], &action, &previous_actions[k]);
    // A signal the caller ignores (SIGINT of a background job) stays ignored.
    if (previous_actions[k].sa_handler == SIG_IGN) sigaction(ending_signals[k], &previous_actions[k], nullptr);
  }
}

void release_temp(const std::string& temp) {
  if (temp != pending_temp) return;
  for (std::size_t k = 0; k < ending_signals.size(); ++k) sigaction(ending_signals[k], &previous_actions[k], nullptr);
  pending_temp[0] = '\0';
}

}  // namespace

atomic_file::atomic_file(std::string path, const char* flag)
    : path_(std::move(path)), temp_(fmt::format("{}.tmp.{}", path_, getpid())), flag_(flag),
      file_(temp_, std::ios::binary | std::ios::trunc) {
  if (!file_) throw pe::input_error(fmt::format("{}: cannot write {}", flag_, path_));
  guard_temp(temp_);
}

atomic_file::~atomic_file() {
  if (!committed_) {
    file_.close();
    std::remove(temp_.c_str());
  }
  release_temp(temp_);
}

void atomic_file::fail(std::string_view why) {
  file_.close();
  std::remove(temp_.c_str());
  committed_ = true;  // nothing left to remove
  throw pe::input_error(why.empty() ? fmt::format("{}: cannot write {}", flag_, path_)
                                    : fmt::format("{}: cannot write {}: {}", flag_, path_, why));
}

void atomic_file::write(std::string_view bytes) {
  file_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file_) fail("");
}

void atomic_file::commit() {
  file_.close();
  if (!file_) fail("");
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) fail(ec.message());
  committed_ = true;
}

}  // namespace pecheck
