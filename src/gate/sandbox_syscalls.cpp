// The sandbox's system call filter: a seccomp filter, written with libseccomp, that the worker loads on itself (see sandbox_parts.hpp).
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "gate/sandbox_parts.hpp"

namespace pe::gate::sandbox::syscalls {
namespace {

// Refused with EPERM, by name (libseccomp resolves them for this architecture; one it does not know
// here is skipped).
constexpr const char* refused[] = {
    // tracing other processes, reading and writing their memory
    "ptrace", "process_vm_readv", "process_vm_writev",
    // new namespaces, mounts and roots
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount",
    "fspick", "mount_setattr",
    // the kernel's attack surface that no kernel under test needs
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    // the machine's
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct"};
// Refused with ENOSYS, as a kernel without them would: runtimes that try them fall back (glibc from
// clone3 to clone, whose flags the filter can read; libuv from io_uring to threads).
constexpr const char* absent[] = {"clone3", "io_uring_setup", "io_uring_enter", "io_uring_register"};
// The flags by which clone() would make new namespaces.
constexpr unsigned long namespace_flags[] = {CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET};

bool add(scmp_filter_ctx filter, std::uint32_t action, const char* name) {
  const int nr = seccomp_syscall_resolve_name(name);
  return nr == __NR_SCMP_ERROR || seccomp_rule_add(filter, action, nr, 0) == 0;
}

bool build_and_load(bool own_pid_namespace) {
  scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
  if (!filter) return errno = ENOMEM, false;
  // A system call of another architecture (x86's 32-bit ones) would pass a filter written for this
  // one's numbers: it ends the process instead.
  bool ok = seccomp_attr_set(filter, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) == 0;
  for (const char* name : refused) ok = ok && add(filter, SCMP_ACT_ERRNO(EPERM), name);
  for (const char* name : absent) ok = ok && add(filter, SCMP_ACT_ERRNO(ENOSYS), name);
  for (const unsigned long flag : namespace_flags)
    ok = ok && seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag)) == 0;
  if (!own_pid_namespace) {
    ok = ok && seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setsid), 0) == 0;
    ok = ok && seccomp_rule_add(filter, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setpgid), 1, SCMP_A1(SCMP_CMP_NE, 0)) == 0;
  }
  if (ok) {
    const int loaded = seccomp_load(filter);
    if (loaded != 0) errno = -loaded, ok = false;
  } else {
    errno = EINVAL;
  }
  const int saved = errno;
  seccomp_release(filter);
  errno = saved;
  return ok;
}

}  // namespace

int probe() {
  const pid_t child = fork();
  if (child < 0) return errno;
  if (child == 0) {
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    _exit(build_and_load(false) ? 0 : (errno > 0 && errno < 256 ? errno : EINVAL));
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : ECHILD;
}

bool confine(bool own_pid_namespace) { return build_and_load(own_pid_namespace); }

}  // namespace pe::gate::sandbox::syscalls
