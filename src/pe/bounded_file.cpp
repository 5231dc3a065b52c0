// Files read whole, bounded (see bounded_file.hpp).
#include "pe/bounded_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/limits.hpp"

namespace pe {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// How messages name the file: the caller's label ("--input 'x.json'", a golden file's path), or the path.
std::string named(const std::string& path, const std::string& label) { return one_line(label.empty() ? path : label); }

}  // namespace

void require_regular_file(const std::string& path, const std::string& label) {
  // A name from a JSON file may hold \u0000: the system would read the name cut there, another file.
  if (path.find('\0') != std::string::npos) throw input_error(fmt::format("{}: the file name holds a NUL byte: refused", named(path, label)));
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw input_error(fmt::format("{}: cannot read it: {}", named(path, label), std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) throw input_error(fmt::format("{}: {}, not a regular file: refused unread", named(path, label), kind_of(st.st_mode)));
}

std::string read_bounded_file(const std::string& path, const std::string& label) {
  require_regular_file(path, label);
  // O_NONBLOCK: should the path turn into a FIFO between stat and open, open still returns at once.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw input_error(fmt::format("{}: cannot read it: {}", named(path, label), std::strerror(errno)));
  struct closer {
    int fd;
    ~closer() { ::close(fd); }
  } closing{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw input_error(fmt::format("{}: not a regular file: refused unread", named(path, label)));
  const auto what = fmt::format("{}: bytes", named(path, label));
  check_limit(limit::file_bytes, static_cast<std::uint64_t>(st.st_size), what);
  std::string text;
  text.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw input_error(fmt::format("{}: cannot read it: {}", named(path, label), std::strerror(errno)));
    if (n == 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
    check_limit(limit::file_bytes, text.size(), what);  // a file that grew past its size is held to the limit too
  }
  return text;
}

}  // namespace pe
