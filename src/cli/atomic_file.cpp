// Temporary file, then rename (see atomic_file.hpp).
#include "cli/atomic_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

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

// Whether path is the file this process's stdout or stderr writes to (the same device and inode):
// the descriptor of that stream, else -1.
int own_stream(const std::string& path) {
  struct stat target {};
  if (stat(path.c_str(), &target) != 0) return -1;
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat stream {};
    if (fstat(fd, &stream) == 0 && stream.st_dev == target.st_dev && stream.st_ino == target.st_ino) return fd;
  }
  return -1;
}

// The regular file a write to path replaces: path itself, or the file a link at path names; empty
// where path is (or names) something else, to be written in place.
std::string rename_target(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status link = fs::symlink_status(path, ec);
  if (ec || link.type() == fs::file_type::not_found) return path;
  if (fs::is_regular_file(link)) return path;
  if (!fs::is_symlink(link) || !fs::is_regular_file(fs::status(path, ec))) return {};
  const fs::path file = fs::canonical(path, ec);
  return ec ? std::string() : file.string();
}

// Removes TARGET.tmp.PID files whose process is gone (a SIGKILL leaves its temporary behind).
void remove_stale_temps(const std::string& target) {
  namespace fs = std::filesystem;
  const fs::path file(target);
  const std::string prefix = file.filename().string() + ".tmp.";
  std::error_code ec;
  for (fs::directory_iterator it(file.parent_path().empty() ? fs::path(".") : file.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid = name.substr(prefix.size());
    if (pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    // kill(pid, 0) fails with ESRCH only where no such process exists (EPERM: it lives, not ours).
    if (kill(static_cast<pid_t>(std::stol(pid)), 0) != 0 && errno == ESRCH) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
}

}  // namespace

atomic_file::atomic_file(std::string path, const char* flag) : path_(std::move(path)), flag_(flag) {
  if (const int stream = own_stream(path_); stream >= 0) {
    std::cout.flush(), std::cerr.flush();
    std::fflush(nullptr);
    fd_ = dup(stream);
  } else if (target_ = rename_target(path_); target_.empty()) {
    fd_ = open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  } else {
    remove_stale_temps(target_);
    temp_ = fmt::format("{}.tmp.{}", target_, getpid());
    fd_ = open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  }
  if (fd_ < 0) throw pe::input_error(fmt::format("{}: cannot write {}: {}", flag_, path_, std::strerror(errno)));
  if (!temp_.empty()) guard_temp(temp_);
}

atomic_file::~atomic_file() {
  if (!committed_) {
    close_file();
    if (!temp_.empty()) std::remove(temp_.c_str());
  }
  if (!temp_.empty()) release_temp(temp_);
}

void atomic_file::close_file() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void atomic_file::fail(std::string_view why) {
  close_file();
  if (!temp_.empty()) std::remove(temp_.c_str());
  committed_ = true;  // nothing left to remove
  throw pe::input_error(why.empty() ? fmt::format("{}: cannot write {}", flag_, path_)
                                    : fmt::format("{}: cannot write {}: {}", flag_, path_, why));
}

void atomic_file::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void atomic_file::commit() {
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail(std::strerror(errno));
  if (!temp_.empty()) {
    std::error_code ec;
    std::filesystem::rename(temp_, target_, ec);
    if (ec) fail(ec.message());
  }
  committed_ = true;
}

}  // namespace pecheck
