// The gate's children (plugin calls, wire processes), each in a process group of its own: waited for
// under a deadline, and killed group and all after each use and whenever the gate exits.
#pragma once
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>

namespace pe::gate::process {

using clock_type = std::chrono::steady_clock;

// The groups alive now, read by the exit and signal paths: a fixed table of atomics, because a
// signal handler may neither allocate nor lock.
inline std::array<std::atomic<pid_t>, 64> live_groups{};

inline void kill_live_groups() {
  for (auto& g : live_groups)
    if (const pid_t p = g.load(); p > 0) kill(-p, SIGKILL);
}

inline void on_deadly_signal(int sig) {
  kill_live_groups();
  signal(sig, SIG_DFL);
  raise(sig);
}

// Once per gate: groups are killed on exit() and on SIGINT/SIGTERM/SIGHUP/SIGQUIT (a ^C in CI
// must not leave an implementation spinning); SIGPIPE from a dead implementation is an answer,
// not the gate's death. A SIGKILLed gate takes its direct children along (PR_SET_PDEATHSIG).
inline void install_exit_paths() {
  static const bool installed = [] {
    std::atexit(kill_live_groups);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
      struct sigaction old {};
      if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) signal(sig, on_deadly_signal);
    }
    signal(SIGPIPE, SIG_IGN);
    return true;
  }();
  (void)installed;
}

// A forked child, leader of its own process group. The destructor kills the group (grandchildren
// included) and reaps the leader.
class child {
 public:
  // Forks and runs body() in the child, which must end in exec or _exit.
  explicit child(const std::function<void()>& body) {
    install_exit_paths();
    std::fflush(nullptr);  // nothing buffered may be written twice
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("gate: fork failed");
    if (pid_ == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);  // the gate died before prctl
      // The gate's exit paths are not the child's: exit() inside a plugin must not kill its own group.
      for (auto& g : live_groups) g.store(0);
      for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) signal(sig, SIG_DFL);
      body();
      _exit(127);
    }
    setpgid(pid_, pid_);  // also here: no window in which the group does not exist yet
    for (auto& g : live_groups) {
      pid_t empty = 0;
      if (g.compare_exchange_strong(empty, pid_)) break;
    }
#ifdef SYS_pidfd_open
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
#endif
  }
  child(const child&) = delete;
  child& operator=(const child&) = delete;
  ~child() { finish(); }

  pid_t pid() const { return pid_; }
  // A descriptor that polls readable once the leader has ended, or -1 (kernel before 5.3).
  int pidfd() const { return pidfd_; }

  // True once the leader has ended (it stays a zombie, so its group id cannot be reused).
  bool ended() const {
    siginfo_t info{};
    return pid_ > 0 && waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_;
  }

  // Waits for the leader to end, until the deadline; every `slice_ms` while it runs, keep_going()
  // may stop the wait early (a memory watch). True if it ended.
  bool wait_until(clock_type::time_point deadline, const std::function<bool()>& keep_going = {}, int slice_ms = 5) const {
    for (;;) {
      if (ended()) return true;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
      if (left <= 0 || (keep_going && !keep_going())) return false;
      const int wait_ms = static_cast<int>(std::min<long long>(left, keep_going ? slice_ms : left));
      if (pidfd_ >= 0) {
        pollfd p{pidfd_, POLLIN, 0};
        poll(&p, 1, wait_ms);
      } else {
        usleep(200);  // no pidfd (kernel before 5.3): poll the leader's state instead
      }
    }
  }

  // Kills the whole group and reaps the leader: its wait status (and resource usage). Idempotent.
  int finish(rusage* usage = nullptr) {
    if (pid_ <= 0) return status_;
    kill(-pid_, SIGKILL);
    rusage used{};
    while (wait4(pid_, &status_, 0, &used) < 0 && errno == EINTR) {
    }
    if (usage) *usage = used;
    for (auto& g : live_groups) {
      pid_t mine = pid_;
      if (g.compare_exchange_strong(mine, 0)) break;
    }
    if (pidfd_ >= 0) close(pidfd_);
    pidfd_ = -1;
    pid_ = -1;
    return status_;
  }

 private:
  pid_t pid_ = -1;
  int pidfd_ = -1;
  int status_ = 0;
};

}  // namespace pe::gate::process
