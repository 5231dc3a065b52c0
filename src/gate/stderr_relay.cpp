// The implementation's stderr relayed under a cap (see stderr_relay.hpp): a pipe and one thread.
#include "gate/stderr_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include <fmt/format.h>

namespace pe::gate::stderr_relay {
namespace {

std::atomic<int> write_fd{-1}, read_fd{-1};
std::atomic<std::uint64_t> total{0};
// True while the thread waits for input: with an empty pipe, everything written so far is through.
std::atomic<bool> idle{true};

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the gate's stderr is closed or full for good: what is left is dropped
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

// The thread: allocates and locks nothing (the gate forks while it runs; a child copies no lock it holds).
void relay(int from, std::uint64_t shown, std::string cut_line) {
  char buffer[65536];
  for (;;) {
    idle.store(true);
    pollfd p{from, POLLIN, 0};
    if (poll(&p, 1, -1) < 0) continue;
    idle.store(false);
    const ssize_t n = read(from, buffer, sizeof buffer);
    if (n <= 0) continue;
    const auto got = static_cast<std::uint64_t>(n);
    const std::uint64_t before = total.fetch_add(got);
    if (before < shown) write_all(STDERR_FILENO, buffer, static_cast<std::size_t>(std::min(got, shown - before)));
    if (before <= shown && shown < before + got) write_all(STDERR_FILENO, cut_line.data(), cut_line.size());  // once: the byte past the cap is here
  }
}

}  // namespace

void start(std::uint64_t shown_bytes) {
  if (write_fd.load() >= 0) return;
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return;  // no relay: the children keep the gate's stderr
  read_fd.store(ends[0]);
  write_fd.store(ends[1]);
  const std::string cut_line =
      fmt::format("\npecheck: the implementation's stderr reached the run's budget of {} bytes (--stderr-budget-mib); the rest is not shown\n",
                  shown_bytes);
  std::thread(relay, ends[0], shown_bytes, cut_line).detach();
}

int write_end() { return write_fd.load(); }
int read_end() { return read_fd.load(); }

std::uint64_t bytes_written() { return total.load(); }

void settle() {
  const int fd = read_fd.load();
  if (fd < 0) return;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    int queued = 0;
    if (ioctl(fd, FIONREAD, &queued) != 0) return;
    if (queued == 0 && idle.load()) return;
    if (std::chrono::steady_clock::now() > give_up) return;
    usleep(200);
  }
}

}  // namespace pe::gate::stderr_relay
