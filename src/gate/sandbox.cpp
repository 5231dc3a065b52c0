// The sandbox of implementation processes: the probe, the keeper and the namespace's init (see sandbox.hpp).
#include "gate/sandbox.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gate/sandbox_parts.hpp"
#include "pe/error.hpp"

namespace pe::gate::sandbox {
namespace {

// The steps of a start, as a failed start report names them.
enum step : int { started = 0, unshare_step, setgroups_step, uid_map_step, gid_map_step, fork_init_step, fork_worker_step, pidfd_step };
constexpr const char* step_names[] = {"",
                                      "unshare",
                                      "writing /proc/self/setgroups",
                                      "writing /proc/self/uid_map",
                                      "writing /proc/self/gid_map",
                                      "fork of the namespace's init",
                                      "fork of the worker",
                                      "pidfd_open (Linux 5.3), which the gate needs to end a namespace"};

// The namespaces every implementation process gets. No mount namespace: the processes see the
// gate's files as the gate's user does, and Landlock (sandbox_files.cpp) confines what they may change.
constexpr int namespaces = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWNET;

bool write_file(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool whole = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int saved = errno;
  close(fd);
  errno = saved;
  return whole;
}

// Enters new namespaces, the caller's user and group mapped to themselves (no other: a file of
// another user stays as closed as it was). The step that failed (errno set), or `started`.
step enter_namespaces() {
  const uid_t uid = geteuid();
  const gid_t gid = getegid();
  // Writing one's own uid_map needs a dumpable process; the gate made itself non-dumpable.
  prctl(PR_SET_DUMPABLE, 1);
  if (unshare(namespaces) != 0) return unshare_step;
  if (!write_file("/proc/self/setgroups", "deny")) return setgroups_step;
  if (!write_file("/proc/self/uid_map", fmt::format("{} {} 1", uid, uid))) return uid_map_step;
  if (!write_file("/proc/self/gid_map", fmt::format("{} {} 1", gid, gid))) return gid_map_step;
  // Non-dumpable again: the worker, inside, must not write this process's memory through /proc.
  prctl(PR_SET_DUMPABLE, 0);
  return started;
}

// Closes every descriptor but `kept`.
void close_all_but(int kept) {
  if (kept > 0) close_range(0, static_cast<unsigned>(kept) - 1, 0);
  close_range(static_cast<unsigned>(kept) + 1, ~0U, 0);
}

// The namespace's init (pid 1 inside): reaps whatever is orphaned to it, and ends when the keeper
// does (its end of `life` closes, or the parent-death signal), which kills everything inside. It
// keeps no signal handler: a handler is the one way a process inside could signal it.
[[noreturn]] void run_init(int life) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  close_all_but(life);
  for (;;) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    pollfd p{life, POLLIN, 0};
    if (poll(&p, 1, 100) > 0) _exit(0);  // the keeper's end closed: it is gone
  }
}

// Ends this process as `status` says the worker ended.
[[noreturn]] void mirror(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  const int sig = WTERMSIG(status);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // the worker's core, if any, was its own
  signal(sig, SIG_DFL);
  sigset_t just;
  sigemptyset(&just);
  sigaddset(&just, sig);
  sigprocmask(SIG_UNBLOCK, &just, nullptr);
  raise(sig);
  _exit(128 + sig);  // a signal whose default is not to end the process
}

void write_report(int link, const start_report& r) {
  const auto* bytes = reinterpret_cast<const char*>(&r);
  for (std::size_t done = 0; done < sizeof r;) {
    const ssize_t n = write(link, bytes + done, sizeof r - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void fail(int link, step s) {
  write_report(link, {0, 0, s, errno});
  _exit(127);
}

// Whether this kernel lets the gate create the namespaces: a child tries, and its child becomes the
// namespace's init. The start report says how it went.
start_report probe() {
  int ends[2];
  if (pipe2(ends, O_CLOEXEC) != 0) return {0, 0, unshare_step, errno};
  const pid_t child = fork();
  const int fork_error = errno;
  if (child == 0) {
    close(ends[0]);
    if (const step s = enter_namespaces(); s != started) fail(ends[1], s);
    const pid_t init = fork();
    if (init == 0) _exit(0);
    if (init < 0) fail(ends[1], fork_init_step);
    waitpid(init, nullptr, 0);
    write_report(ends[1], {});
    _exit(0);
  }
  close(ends[1]);
  start_report r{0, 0, fork_init_step, child < 0 ? fork_error : ECHILD};
  if (child > 0) {
    start_report got{};
    ssize_t n = 0;
    while ((n = read(ends[0], &got, sizeof got)) < 0 && errno == EINTR) {
    }
    if (n == static_cast<ssize_t>(sizeof got)) r = got;
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  close(ends[0]);
  if (r.step == started) {
    const long fd = syscall(SYS_pidfd_open, getpid(), 0);
    if (fd < 0) return {0, 0, pidfd_step, errno};
    close(static_cast<int>(fd));
  }
  return r;
}

// What --sandbox off leaves, and what is settled before configure() runs.
const protections none_on{"off", {}, {"every protection: --sandbox off (the implementation runs beside the gate, as its user)"}};

// What configure() settled, for the report and for every child's confine().
struct settlement {
  protections report = none_on;
  bool off = true, namespaces = false;
  std::string scratch;  // the run's scratch directory ("" when off, or where it could not be made)
  int landlock_abi = 0;  // 0: no Landlock confinement
  bool seccomp = false;   // whether the worker loads the system call filter
};
settlement& settled() {
  static settlement s;
  return s;
}

// The prefix of scratch directories; the gate's pid follows, so that a later run can tell one
// whose gate has ended (killed before it could remove it) and remove it.
constexpr const char* scratch_prefix = "pecheck-scratch-";

// Removes the scratch directories of gates that have ended, under `parent`.
void remove_stale_scratch(const std::filesystem::path& parent) {
  std::error_code e;
  for (const auto& entry : std::filesystem::directory_iterator(parent, e)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(scratch_prefix)) continue;
    const long pid = std::strtol(name.c_str() + std::strlen(scratch_prefix), nullptr, 10);
    if (pid > 0 && kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) std::filesystem::remove_all(entry.path(), e);
  }
}

// A fresh scratch directory under $TMPDIR (or /tmp), removed when the gate exits; "" with `error`
// set where none can be made.
std::string make_scratch(int& error) {
  const char* tmp = std::getenv("TMPDIR");
  const std::filesystem::path parent = tmp && *tmp ? tmp : "/tmp";
  remove_stale_scratch(parent);
  std::string templ = (parent / fmt::format("{}{}-XXXXXX", scratch_prefix, getpid())).string();
  if (!mkdtemp(templ.data())) {
    error = errno;
    return "";
  }
  static std::string removed_at_exit;
  removed_at_exit = templ;
  std::atexit([] {
    std::error_code e;
    std::filesystem::remove_all(removed_at_exit, e);
  });
  return templ;
}

// Ends a child whose confinement failed: the implementation never runs unconfined by surprise.
[[noreturn]] void refuse_to_run(const char* what) {
  const std::string line = fmt::format("pecheck: the sandbox could not confine the implementation's process ({}: {})\n", what, std::strerror(errno));
  (void)!write(STDERR_FILENO, line.data(), line.size());
  _exit(126);
}

}  // namespace

mode parse_mode(const std::string& name) {
  if (name == "auto") return mode::automatic;
  if (name == "require") return mode::require;
  if (name == "off") return mode::off;
  throw input_error(fmt::format("--sandbox '{}' is not auto, require or off", name));
}

std::string describe_failure(const start_report& r) {
  const int s = std::clamp(r.step, 1, static_cast<int>(std::size(step_names)) - 1);
  return fmt::format("{}: {}", step_names[s], std::strerror(r.error));
}

// What this system allows, probed once per gate process.
struct mechanisms {
  start_report namespaces;  // step 0: available
  int landlock_abi = 0, landlock_error = 0;
  std::string scratch;  // "" where Landlock is unavailable or no directory could be made
  int scratch_error = 0;
  int seccomp_error = 0;  // 0: available
};
const mechanisms& probed() {
  static const mechanisms m = [] {
    mechanisms m;
    m.namespaces = probe();
    m.landlock_abi = landlock::abi(m.landlock_error);
    if (m.landlock_abi > 0) m.scratch = make_scratch(m.scratch_error);
    m.seccomp_error = syscalls::probe();
    return m;
  }();
  return m;
}

void configure(mode m) {
  settlement& s = settled();
  if (m == mode::off) {
    s = settlement{};
    return;
  }
  // Tracing the gate, or reading and writing its memory through /proc, needs CAP_SYS_PTRACE in the
  // gate's user namespace once the gate is non-dumpable: a process in a namespace of its own has none.
  prctl(PR_SET_DUMPABLE, 0);
  const mechanisms& got = probed();
  const bool namespaces = got.namespaces.step == started, files = !got.scratch.empty(), signals = files && got.landlock_abi >= 6,
             filter = got.seccomp_error == 0;
  const std::string files_why = got.landlock_abi == 0 ? fmt::format("Landlock: {}", std::strerror(got.landlock_error))
                                                      : fmt::format("no scratch directory: {}", std::strerror(got.scratch_error));
  if (m == mode::require) {
    const auto refuse = [](const std::string& what) { throw input_error(fmt::format("--sandbox require: this system does not let the gate {}", what)); };
    if (!namespaces) refuse(fmt::format("create the implementation's namespaces ({})", describe_failure(got.namespaces)));
    if (!files) refuse(fmt::format("confine the implementation's file writes ({})", files_why));
    if (!filter) refuse(fmt::format("filter the implementation's system calls (seccomp: {})", std::strerror(got.seccomp_error)));
  }
  protections p;
  p.mode = m == mode::automatic ? "auto" : "require";
  if (namespaces) {
    p.on = {"user namespace: no capability over anything outside it, the gate's memory included (the gate is non-dumpable)",
            "PID namespace: the gate and every process outside are out of its reach; every process it starts ends with it",
            "IPC and network namespaces: no System V IPC, and no network"};
  } else {
    // What the other mechanisms do not make up for.
    std::string open = "it has the machine's network and System V IPC";
    if (!signals) open += ", and can signal the gate's processes";
    if (!filter) open += ", leave processes behind and trace the gate where its user has CAP_SYS_PTRACE";
    p.off.push_back(fmt::format("namespaces ({}): {}", describe_failure(got.namespaces), open));
  }
  if (files) {
    // Without the directory's name: it differs from run to run, and the report must not.
    p.on.push_back(fmt::format("file writes: only under the run's scratch directory (its PECHECK_SCRATCH and TMPDIR, removed when the "
                               "gate ends), to /dev/null and the like, to GPU devices and to its own /proc files (Landlock ABI {})",
                               got.landlock_abi));
    if (got.landlock_abi < 3)
      p.off.push_back(fmt::format("truncate(2) of other files: not refused (Landlock ABI {} here; ABI 3, Linux 6.2, refuses it)", got.landlock_abi));
  } else {
    p.off.push_back(fmt::format("file writes ({}): not confined, the implementation may write wherever the gate's user may", files_why));
  }
  if (signals) p.on.push_back("signals: only to the implementation's own processes, and no abstract UNIX socket outside them (Landlock scopes)");
  if (filter) {
    p.on.push_back(fmt::format("system calls: ptrace, process_vm_*, new namespaces and mounts, bpf, perf events, userfaultfd, keys, io_uring "
                               "and the machine's own calls refused{} (seccomp)",
                               namespaces ? "" : ", and setsid and setpgid into another group"));
  } else {
    p.off.push_back(fmt::format("system calls (seccomp: {}): not filtered", std::strerror(got.seccomp_error)));
  }
  s = settlement{p, false, namespaces, got.scratch, files ? got.landlock_abi : 0, filter};
}

std::string report_lines(const protections& p) {
  std::vector<std::string> names;
  for (const auto& on : p.on) names.push_back(on.substr(0, on.find(": ")));
  std::string out = names.empty() ? "" : fmt::format("sandbox: on: {}\n", fmt::join(names, ", "));
  for (const auto& off : p.off) out += fmt::format("sandbox: off: {}\n", off);
  return out;
}

const protections& current() { return settled().report; }

protections in_process() { return {"in process", {}, {"every protection: the reference runs in the gate's own process"}}; }

bool namespaces_on() { return settled().namespaces; }

void confine() {
  const settlement& s = settled();
  if (s.off) return;
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);  // no setuid program regains what the sandbox takes
  if (s.landlock_abi > 0) {
    setenv("TMPDIR", s.scratch.c_str(), 1);
    setenv("PECHECK_SCRATCH", s.scratch.c_str(), 1);
    // CUDA's cache of kernels compiled from PTX, shared by the run's workers (its default, under
    // $HOME, is not writable here).
    setenv("CUDA_CACHE_PATH", (s.scratch + "/cuda-cache").c_str(), 1);
    if (!landlock::confine(s.scratch, s.landlock_abi)) refuse_to_run("Landlock");
  }
  // Last: the filter refuses what the steps before may need.
  if (s.seccomp && !syscalls::confine(s.namespaces)) refuse_to_run("seccomp");
}

void keep(const std::function<void()>& body, int link) {
  if (const step s = enter_namespaces(); s != started) fail(link, s);
  int life[2];
  if (pipe2(life, O_CLOEXEC) != 0) fail(link, fork_init_step);
  const pid_t init = fork();
  if (init == 0) run_init(life[0]);
  if (init < 0) fail(link, fork_init_step);
  const pid_t worker = fork();
  if (worker == 0) {
    // A session of its own: no group it can signal holds the keeper.
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    // Dumpable: the gate reads its memory figures and resets its peak through /proc.
    prctl(PR_SET_DUMPABLE, 1);
    close(life[0]), close(life[1]), close(link);
    body();
    _exit(127);
  }
  if (worker < 0) fail(link, fork_worker_step);
  close(life[0]);
  write_report(link, {worker, init, started, 0});
  char go = 0;
  while (read(link, &go, 1) < 0 && errno == EINTR) {
  }
  // Nothing of the gate's stays open here: an end of file the gate waits for is the worker's alone.
  close_all_but(life[1]);
  int status = 0;
  while (waitpid(worker, &status, 0) < 0 && errno == EINTR) {
  }
  kill(init, SIGKILL);  // and with it every process left inside
  while (waitpid(init, nullptr, 0) < 0 && errno == EINTR) {
  }
  mirror(status);
}

}  // namespace pe::gate::sandbox
