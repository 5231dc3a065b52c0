// The gate's children (plugin calls, wire processes), each in a process group of its own and, where
// the sandbox is on, in namespaces of its own: waited for under a deadline, and killed group,
// namespace and all after each use and whenever the gate exits.
#pragma once
#include <poll.h>
#include <sys/socket.h>
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

#include "gate/sandbox.hpp"
#include "gate/stderr_relay.hpp"

namespace pe::gate::process {

using clock_type = std::chrono::steady_clock;

// The groups alive now, read by the exit and signal paths: a fixed table of atomics, because a
// signal handler may neither allocate nor lock.
inline std::array<std::atomic<pid_t>, 64> live_groups{};

inline void kill_live_groups() {
  for (auto& g : live_groups)
    if (const pid_t p = g.load(); p > 0) kill(-p, SIGKILL), kill(p, SIGKILL);  // a leader may have left its group
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

// A forked child, leader of its own process group. Where the sandbox is on it is the keeper of
// new namespaces (sandbox::keep), and body() runs in the worker, its child there; the keeper ends as
// the worker ends. The destructor kills the group, the leader and the namespace (grandchildren
// included) and reaps the leader.
class child {
 public:
  // Forks and runs body() in the child (or the worker), which must end in exec or _exit.
  explicit child(const std::function<void()>& body) {
    install_exit_paths();
    const bool boxed = sandbox::namespaces_on();
    int link[2] = {-1, -1};
    if (boxed && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link) != 0) throw std::runtime_error("gate: socketpair failed");
    std::fflush(nullptr);  // nothing buffered may be written twice
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ < 0) {
      if (boxed) close(link[0]), close(link[1]);
      throw std::runtime_error("gate: fork failed");
    }
    if (pid_ == 0) {
      setpgid(0, 0);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(127);  // the gate died before prctl
      // The gate's exit paths are not the child's: exit() inside a plugin must not kill its own group.
      for (auto& g : live_groups) g.store(0);
      for (const int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) signal(sig, SIG_DFL);
      // Its stderr goes through the relay, which holds all of the implementation's to one budget.
      if (const int relay = stderr_relay::write_end(); relay >= 0) dup2(relay, 2), close(relay), close(stderr_relay::read_end());
      const auto confined = [&body] {
        sandbox::confine();
        body();
      };
      if (boxed) close(link[0]), sandbox::keep(confined, link[1]);
      confined();
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
    worker_ = pid_;
    if (boxed) enter_sandbox(link);
  }
  child(const child&) = delete;
  child& operator=(const child&) = delete;
  ~child() { finish(); }

  pid_t pid() const { return pid_; }
  // The process that runs body(): the worker inside the namespaces, or the child itself.
  pid_t worker_pid() const { return worker_; }
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
    if (worker_pidfd_ >= 0) {
      // The keeper reaps the worker, then ends the namespace and reaps its init, then ends: killed
      // itself, it would leave both to be reaped by whoever inherits them (a system's init can take
      // seconds), and the namespace to end only then. Nothing inside can reach the keeper.
      send_kill(worker_pidfd_);
      send_kill(init_pidfd_);
      pollfd p{pidfd_, POLLIN, 0};
      while (pidfd_ >= 0 && poll(&p, 1, keeper_end_ms) < 0 && errno == EINTR) {
      }
      close(worker_pidfd_);
      worker_pidfd_ = -1;
    }
    // The leader too: one that moved to another group (the gate's, say) is not in its own.
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    send_kill(init_pidfd_);
    rusage used{};
    while (wait4(pid_, &status_, 0, &used) < 0 && errno == EINTR) {
    }
    if (usage) *usage = used;
    if (init_pidfd_ >= 0) {
      // The namespace's init ends after everything inside it: then nothing of the child is left.
      pollfd p{init_pidfd_, POLLIN, 0};
      while (poll(&p, 1, init_end_ms) < 0 && errno == EINTR) {
      }
      close(init_pidfd_);
      init_pidfd_ = -1;
    }
    for (auto& g : live_groups) {
      pid_t mine = pid_;
      if (g.compare_exchange_strong(mine, 0)) break;
    }
    if (pidfd_ >= 0) close(pidfd_);
    pidfd_ = -1;
    pid_ = -1;
    stderr_relay::settle();  // its last lines before whatever the gate prints next
    return status_;
  }

 private:
  static void send_kill(int pidfd) {
#ifdef SYS_pidfd_send_signal
    if (pidfd >= 0) syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
#endif
  }
  // The longest the gate waits for a keeper to end after killing its worker and init, before it
  // kills the keeper too (it takes milliseconds).
  static constexpr int keeper_end_ms = 5000;
  // The longest the gate waits for a namespace to empty (a process in an uninterruptible sleep,
  // inside a driver, delays it); far above the milliseconds it takes.
  static constexpr int init_end_ms = 10000;

  // The gate's side of a keeper's start: the worker's and init's pids, handles on both (taken
  // before the keeper may reap them, which it does only after the answer byte), then the byte.
  void enter_sandbox(const int link[2]) {
    close(link[1]);
    sandbox::start_report r{};
    std::size_t got = 0;
    while (got < sizeof r) {
      const ssize_t n = read(link[0], reinterpret_cast<char*>(&r) + got, sizeof r - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    if (got == sizeof r && r.step == 0) {
#ifdef SYS_pidfd_open
      init_pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, r.init, 0));
      worker_pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, r.worker, 0));
#endif
      worker_ = r.worker;
      (void)!send(link[0], "g", 1, MSG_NOSIGNAL);
    }
    close(link[0]);
    if (got == sizeof r && r.step == 0 && worker_pidfd_ >= 0 && init_pidfd_ >= 0) return;
    finish();
    throw std::runtime_error(got == sizeof r ? "gate: the sandbox did not start: " + sandbox::describe_failure(r)
                                             : "gate: the sandbox's keeper ended before it started the worker, or its processes could not be held");
  }

  pid_t pid_ = -1, worker_ = -1;
  int pidfd_ = -1, worker_pidfd_ = -1, init_pidfd_ = -1;
  int status_ = 0;
};

}  // namespace pe::gate::process
