// The sandbox an implementation's processes run in (--sandbox): new user, PID, IPC and network
// namespaces under a keeper process, file writes confined to a scratch directory (Landlock), a
// system call filter (seccomp), where the kernel allows them, and a gate that cannot be traced.
#pragma once
#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace pe::gate::sandbox {

// auto: the namespaces where the kernel allows them, and the verdict says so where it does not;
// require: exit 2 where it does not; off: none of it (the implementation runs beside the gate).
enum class mode { automatic, require, off };
mode parse_mode(const std::string& name);  // "auto", "require", "off"; input_error otherwise

// What is in force, for the verdict and the JSON report: each protection in force, and each not
// in force with the reason.
struct protections {
  std::string mode;              // "auto", "require", "off", or "in process" (the reference)
  std::vector<std::string> on;   // in force
  std::vector<std::string> off;  // not in force, each with why
};

// Settles, once per command and before any implementation process starts, what every later one
// gets: probes whether this kernel lets an unprivileged process create the namespaces (once per
// gate process; a fork), and makes the gate's own process non-dumpable unless `m` is off. Throws
// input_error (exit 2) for require where the namespaces are unavailable, naming why.
void configure(mode m);
// The report's lines on `p`: "sandbox: on: NAMES" (each protection in force by its name, the words
// before its colon) and a "sandbox: off: ..." line for each one not in force; each line ends in a newline.
std::string report_lines(const protections& p);

// What configure() settled (off until it is called).
const protections& current();
// What an implementation run inside the gate's own process has: nothing.
protections in_process();
// Whether implementation processes start inside the namespaces.
bool namespaces_on();
// In a child the gate forked, before any code of the implementation's: the confinement configure()
// settled (no new privileges; the run's scratch directory as TMPDIR and PECHECK_SCRATCH; writes
// confined there with Landlock; the seccomp filter). Where a step fails the child ends (exit 126, a line on stderr):
// the implementation never runs with less than the report says.
void confine();

// The first message on the link between the gate and a keeper: the pids (the gate's view) of the
// worker, which runs the child's body, and of the namespace's init; or, when `step` is not 0, the
// step that failed and its errno.
struct start_report {
  pid_t worker = 0, init = 0;
  int step = 0, error = 0;
};
// The failed step of a start report, in words ("unshare: Operation not permitted").
std::string describe_failure(const start_report& r);

// Runs in a child the gate forked (the keeper, single-threaded): enters the namespaces, forks their
// init and then the worker, which runs body(); writes the start report on `link`, waits for one
// byte back (the gate has taken its handles on the processes), closes every other descriptor, waits
// for the worker, ends the namespace (init first, so nothing in it survives), and ends as the worker
// ended: the same exit status, or the same signal.
[[noreturn]] void keep(const std::function<void()>& body, int link);

}  // namespace pe::gate::sandbox
