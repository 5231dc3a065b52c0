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
  const auto cap = static_cast<std::uint64_t>(limit_value(limit::file_bytes));
  const auto what = fmt::format("{}: bytes", named(path, label));
  check_limit(limit::file_bytes, static_cast<std::uint64_t>(st.st_size), what);
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t have = 0;
  for (;;) {
    if (have == text.size()) {  // at the size stat gave: one byte more says it grew
      if (text.size() >= cap) {
        char extra = 0;
        const ssize_t n = ::read(fd, &extra, 1);
        if (n > 0) check_limit(limit::file_bytes, cap + 1, what);
        break;
      }
      text.resize(std::min<std::uint64_t>(cap, text.size() + 65536));
    }
    const ssize_t n = ::read(fd, text.data() + have, text.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw input_error(fmt::format("{}: cannot read it: {}", named(path, label), std::strerror(errno)));
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  text.resize(have);
  return text;
}

}  // namespace pe
