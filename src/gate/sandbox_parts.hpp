// The mechanisms the sandbox is built of, each behind a probe the gate runs and a step the worker
// takes on itself before any implementation code: Landlock (files, signals) and seccomp (system calls).
#pragma once
#include <string>

namespace pe::gate::sandbox {

namespace landlock {
// The Landlock ABI this kernel offers (1 from Linux 5.13), or 0 with `error` set (errno) where it
// offers none (an older kernel, or Landlock not among the active security modules).
int abi(int& error);
// In the worker: from now on (and across exec) this process and its descendants may create, change
// or remove files only under `scratch`, write only there, to a few harmless devices (/dev/null and
// the like), to a GPU's device files and to their own /proc files; from ABI 6 on, they may signal
// only their own processes and reach no abstract UNIX socket outside. False (errno set) on failure.
bool confine(const std::string& scratch, int abi);
}  // namespace landlock

}  // namespace pe::gate::sandbox

namespace pe::gate::sandbox::syscalls {
// Whether a seccomp filter loads here: 0, or the errno of the step that failed (a probe in a fork).
int probe();
// In the worker, with no new privileges: loads the filter that refuses (EPERM) the system calls an
// implementation never needs and an attack does: tracing and reading other processes (ptrace,
// process_vm_*), new namespaces and mounts (unshare, setns, clone with CLONE_NEW*, mount and its
// kin), the kernel's attack surface (bpf, perf_event_open, userfaultfd, keys, io_uring: ENOSYS, so
// that runtimes fall back), the machine's (modules, kexec, reboot, swap, acct); and, where the
// process has no PID namespace of its own, setsid and setpgid into another group, the ways out of
// the process group the gate kills. False (errno set) on failure.
bool confine(bool own_pid_namespace);
}  // namespace pe::gate::sandbox::syscalls
