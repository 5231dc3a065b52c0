// The implementation's stderr relayed under a cap (see stderr_relay.hpp): a pipe and one process.
#include "gate/stderr_relay.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <string>

#include <fmt/format.h>

namespace pe::gate::stderr_relay {
namespace {

// What the relay process and the gate share: one page mapped before the fork.
struct shared_counts {
  std::atomic<std::uint64_t> total{0};  // bytes read from the pipe so far
  // True while the relay waits for input: with an empty pipe, everything written so far is through.
  std::atomic<bool> idle{true};
};
static_assert(std::atomic<std::uint64_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "the counts are shared between processes: their atomics may not hide a lock");

int write_fd = -1, read_fd = -1;
shared_counts* counts = nullptr;

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the gate's stderr is closed or full for good: what is left is dropped
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

// The relay process: copies the pipe to its stderr (the gate's) up to `shown` bytes, then the cut
// line once, then reads and drops the rest; ends when every write end is closed, or with the gate.
[[noreturn]] void relay(int from, std::uint64_t shown, const std::string& cut_line) {
  char buffer[65536];
  for (;;) {
    counts->idle.store(true);
    pollfd p{from, POLLIN, 0};
    if (poll(&p, 1, -1) < 0) continue;
    counts->idle.store(false);
    const ssize_t n = read(from, buffer, sizeof buffer);
    if (n == 0) _exit(0);
    if (n < 0) continue;
    const auto got = static_cast<std::uint64_t>(n);
    const std::uint64_t before = counts->total.fetch_add(got);
    if (before < shown) write_all(STDERR_FILENO, buffer, static_cast<std::size_t>(std::min(got, shown - before)));
    if (before <= shown && shown < before + got) write_all(STDERR_FILENO, cut_line.data(), cut_line.size());  // once: the byte past the cap is here
  }
}

}  // namespace

// A process, not a thread: the gate forks workers all through the run, and a fork made while another
// thread holds a lock gives the child that lock held for good (ASan's allocator is not fork-safe:
// a thread here hung one worker start in three of the sanitized gate smoke test).
void start(std::uint64_t shown_bytes) {
  if (write_fd >= 0) return;
  void* page = mmap(nullptr, sizeof(shared_counts), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return;  // no relay: the children keep the gate's stderr
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) {
    munmap(page, sizeof(shared_counts));
    return;
  }
  if (ends[0] <= STDERR_FILENO || ends[1] <= STDERR_FILENO) {  // the gate was started without stdin or stderr: no relay either
    close(ends[0]), close(ends[1]), munmap(page, sizeof(shared_counts));
    return;
  }
  counts = new (page) shared_counts;
  const std::string cut_line =
      fmt::format("\npecheck: the implementation's stderr reached the run's budget of {} bytes (--stderr-budget-mib); the rest is not shown\n",
                  shown_bytes);
  const pid_t gate = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(ends[0]), close(ends[1]), munmap(page, sizeof(shared_counts)), counts = nullptr;
    return;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != gate) _exit(0);
    // None of the gate's handlers (they remove the gate's files, kill its groups) and none of its
    // files but the pipe's read end and stderr (the pipe's write end among them, so that the read
    // sees the end once the gate and its children have closed theirs).
    for (int sig = 1; sig < NSIG; ++sig)
      if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
    close_range(STDERR_FILENO + 1, static_cast<unsigned>(ends[0]) - 1, 0);
    close_range(static_cast<unsigned>(ends[0]) + 1, ~0U, 0);
    relay(ends[0], shown_bytes, cut_line);
  }
  read_fd = ends[0];
  write_fd = ends[1];
}

int write_end() { return write_fd; }
int read_end() { return read_fd; }

std::uint64_t bytes_written() { return counts ? counts->total.load() : 0; }

void settle() {
  if (read_fd < 0) return;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (;;) {
    int queued = 0;
    if (ioctl(read_fd, FIONREAD, &queued) != 0) return;
    if (queued == 0 && counts->idle.load()) return;
    if (std::chrono::steady_clock::now() > give_up) return;
    usleep(200);
  }
}

}  // namespace pe::gate::stderr_relay
