// Tests for tree_memory_watch: a child's memory counts, a spike between samples shows in the peak,
// and memory held, or a peak reached, before the watch began does not count.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "gate/tree_memory.hpp"

namespace pe::gate {
namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

// Writes `bytes` (so they are resident) and keeps them, or unmaps them at once. mmap, not malloc:
// the allocator (ASan's quarantine above all) may keep freed memory resident.
void touch(std::size_t bytes, bool keep) {
  if (bytes == 0) return;
  void* block = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (block == MAP_FAILED) _exit(2);
  std::memset(block, 1, bytes);
  if (!keep) munmap(block, bytes);
}

// A child of this process: `before` MiB touched at its start (kept or freed), then on a byte from
// the pipe `during` MiB touched (kept or freed), then a byte back; it waits to be killed.
struct child_process {
  pid_t pid = -1;
  int to[2], from[2];
  child_process(std::size_t before, bool keep_before, std::size_t during, bool keep) {
    if (pipe(to) != 0 || pipe(from) != 0) std::abort();
    pid = fork();
    if (pid == 0) {
      touch(before * mib, keep_before);
      char c;
      if (write(from[1], "r", 1) != 1 || read(to[0], &c, 1) != 1) _exit(1);
      touch(during * mib, keep);
      if (write(from[1], "d", 1) != 1) _exit(1);
      pause();
      _exit(0);
    }
    wait_for_byte();  // ready: what it held before is resident
  }
  void go() {
    if (write(to[1], "g", 1) != 1) std::abort();
    wait_for_byte();
  }
  void wait_for_byte() {
    char c;
    if (read(from[0], &c, 1) != 1) std::abort();
  }
  ~child_process() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    for (const int fd : {to[0], to[1], from[0], from[1]}) close(fd);
  }
};

TEST(TreeMemory, ADescendantsMemoryCountsAgainstTheAllowance) {
  // The watch is over this test process: the child is one of its descendants.
  tree_memory_watch watch(getpid(), 64 * mib);
  EXPECT_FALSE(watch.past_now());
  child_process child(0, true, 128, true);
  child.go();
  bool past = false;
  for (int i = 0; i < 20 && !past; ++i) past = watch.past_now();  // the tree is walked again every tenth sample
  EXPECT_TRUE(past);
}

TEST(TreeMemory, ASpikeBetweenSamplesShowsInThePeak) {
  child_process child(0, true, 128, false);
  tree_memory_watch watch(child.pid, 64 * mib);
  child.go();  // touched and freed: gone from the resident set before any sample
  EXPECT_FALSE(watch.past_now());
  EXPECT_TRUE(watch.peak_past());
}

TEST(TreeMemory, MemoryHeldBeforeTheWatchDoesNotCount) {
  child_process child(256, true, 16, true);
  tree_memory_watch watch(child.pid, 64 * mib);
  child.go();
  EXPECT_FALSE(watch.past_now());
  EXPECT_FALSE(watch.peak_past());
}

TEST(TreeMemory, APeakBeforeTheWatchDoesNotCount) {
  child_process child(256, false, 16, true);
  tree_memory_watch watch(child.pid, 64 * mib);
  child.go();
  EXPECT_FALSE(watch.past_now());
  EXPECT_FALSE(watch.peak_past());
}

}  // namespace
}  // namespace pe::gate
