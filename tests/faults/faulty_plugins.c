/* Faulty plugins for the gate's isolation tests: the example RoPE plugin with one fault per build
 * (-DFAULT=n, names in faults.cmake), so the fault alone decides the verdict. Faults in loading
 * (constructor, pe_impl_abi_version, pe_impl_name) must make the plugin unusable (exit 2); faults
 * in pe_impl_run, on rotate calls, must fail the case that did it (exit 1). The faults from
 * IGNORES_SIGNALS_HANGS on fault once per gate run when PECHECK_FAULT_ONCE names a file (see
 * expect_fault.sh), so every later check must pass. */
#define _GNU_SOURCE /* unshare, CLONE_NEWUSER */
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pecheck/impl.h"

/* The correct kernel, under other names. */
#define pe_impl_abi_version example_abi_version
#define pe_impl_name example_name
#define pe_impl_run example_run
#include "../../examples/c_rope_plugin/rope_plugin.c"
#undef pe_impl_abi_version
#undef pe_impl_name
#undef pe_impl_run

enum fault {
  CORRECT = 0,
  CTOR_EXIT0 = 1,
  CTOR_SEGV = 2,
  CTOR_HANG = 3,
  VERSION_SEGV = 4,
  NAME_WILD_POINTER = 5,
  NAME_NO_NUL_64K = 6,
  WRITE_65_PAST = 7,
  WRITE_1MIB_PAST = 8,
  WRITE_INPUT = 9,
  TOUCH_1_5_GIB = 10,
  RUN_EXIT0 = 11,
  RUN__EXIT0 = 12,
  BAD_STATUS_VALUE = 13,
  WRITE_BEFORE = 14,
  MESSAGE_OVERRUN = 15,
  RUN_FORKS_SPINNER = 16,
  NAME_CONTROL_BYTE = 17,
  HEAP_CORRUPT_ON_CALL_5 = 18,
  LEAK_64_MIB_PER_CALL = 19,
  CHILD_TOUCHES_1_5_GIB = 20,
  FORKED_CHILD_RETURNS = 21,
  IGNORES_SIGNALS_HANGS = 22,
  CLOSES_STD_FDS_ABORTS = 23,
  CHDIR_AWAY_SEGV = 24,
  WRITES_ON_CHANNEL = 25,
  RESERVES_64_GIB = 26,
  /* Verdicts a kernel may try to earn by declining: the gate must not call either a PASS. */
  UNSUPPORTED_UNLESS_POSITION_0 = 27, /* rotate answered only where every position is 0, where it is the identity */
  INV_FREQ_ONLY = 28,                 /* inv_freq alone (one case, correct), every other call declined */
  WRITES_INHERITED_FILES = 29,        /* a line into every regular file it inherited open (not its tensors' memfd) */
  /* Attacks on the gate's processes (found as the_gate() finds them), each on every rotate call;
   * the sandbox must leave every one without effect, so that the correct answers pass. */
  KILLS_GATE = 30,            /* SIGKILL to the gate and its keeper */
  STOPS_GATE = 31,            /* SIGSTOP to them */
  TRACES_GATE = 32,           /* PTRACE_SEIZE on them: an error naming the process where it succeeds */
  OPENS_GATE_MEMORY = 33,     /* /proc/PID/mem of them, read-write: an error naming it where it opens */
  JOINS_GATE_GROUP = 34,      /* setpgid into the gate's process group (the worker leaves its own) */
  LEAVES_100_DAEMONS = 35,    /* a double-forked setsid daemon on each of the first 100 calls */
  FORGES_REPORT_LATER = 36,   /* a daemon that writes a PASS into the --json report once the gate has ended */
  SLEEPS_50_MS = 37,          /* correct, 50 ms per rotate call: within any deadline, past a budget for the run */
  FLOODS_STDERR = 38,         /* correct, 4 MiB of stderr per rotate call */
  WRITES_INTO_GATE_DIR = 39,  /* a file created in the gate's directory, its files truncated: an error where either succeeds */
  TRIES_REFUSED_SYSCALLS = 40, /* unshare, clone into new namespaces, ptrace, bpf, io_uring: an error naming any that succeeds */
  UNSUPPORTED_ON_EDGE_VALUES = 41, /* rotate declined where x holds a subnormal or a value past 2^100: right on all the rest */
  KEEPS_HELPER_FROM_LOAD = 42,     /* not a fault: a helper process started while loading, which every call needs alive */
  /* What a plugin does to its call's memory, which the worker keeps from call to call for calls of one
   * layout (an audit's): it must not outlive the call. */
  UNPROTECTS_INPUT = 43, /* its first rotate call makes x writable, each later one writes x (the same bytes) */
  UNMAPS_OUTPUT = 44,    /* correct, and unmaps its output once it has written it */
};

/* n bytes rounded up to whole pages (a call's tensors each start a page). */
static size_t whole_pages(size_t n) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  return (n + page - 1) / page * page;
}

/* 1 on the call that faults: every call, or with PECHECK_FAULT_ONCE=FILE the first of the gate run
 * (FILE, created then, remembers it across worker processes). */
static int fault_now(void) {
  const char *once = getenv("PECHECK_FAULT_ONCE");
  if (!once) return 1;
  /* Where the gate gives a scratch directory, the one it lets the implementation write, FILE's name there. */
  const char *scratch = getenv("PECHECK_SCRATCH");
  char in_scratch[4096];
  if (scratch && *scratch) {
    const char *name = strrchr(once, '/');
    snprintf(in_scratch, sizeof in_scratch, "%s/%s", scratch, name ? name + 1 : once);
    once = in_scratch;
  }
  const int fd = open(once, O_CREAT | O_EXCL | O_WRONLY, 0600);
  if (fd < 0) return 0;
  close(fd);
  return 1;
}

/* INV_FREQ_ONLY: inv_freq [rotary/2] and attention_factor [] of a plain rope spec, in binary32 as
 * the example kernel computes them; every other op declined. */
static int32_t inv_freq_only(const char *op, const char *spec, pe_tensor *outputs, int32_t n_outputs) {
  if (strcmp(op, "inv_freq") != 0 || strncmp(spec, "rope(", 5) != 0 || pe_spec_field(spec, "scaling") || pe_spec_field(spec, "freqs")) return PE_UNSUPPORTED;
  const long rotary = strtol(pe_spec_field(spec, "rotary_dim"), NULL, 10);
  const float base = strtof(pe_spec_field(spec, "base"), NULL);
  for (int32_t o = 0; o < n_outputs; ++o) {
    float *w = (float *)outputs[o].data;
    if (outputs[o].dtype != PE_F32) return PE_UNSUPPORTED;
    if (strcmp(outputs[o].name, "attention_factor") == 0) *w = 1.0f;
    if (strcmp(outputs[o].name, "inv_freq") == 0 && outputs[o].shape[0] == rotary / 2)
      for (long i = 0; i < rotary / 2; ++i) w[i] = 1.0f / powf(base, (float)(2 * i) / (float)rotary);
  }
  return PE_OK;
}

/* WRITES_INTO_GATE_DIR: what the sandbox must refuse (a file created in the test's directory,
 * PECHECK_FAULT_DIR, which is the gate's, and its regular files truncated) and allow (a file in the
 * scratch directory); PE_ERROR saying which went otherwise. */
static int32_t write_into_gate_dir(char *message, size_t message_size) {
  const char *scratch = getenv("PECHECK_SCRATCH"), *target = getenv("PECHECK_FAULT_DIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/scratch_file", scratch ? scratch : ".");
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd < 0) {
    snprintf(message, message_size, "cannot write into the scratch directory '%s'", scratch ? scratch : "");
    return PE_ERROR;
  }
  close(fd);
  if (!target) return PE_OK;
  size_t used = 0;
  message[0] = '\0';
  snprintf(path, sizeof path, "%s/written_by_the_implementation", target);
  fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd >= 0) used += (size_t)snprintf(message + used, message_size - used, "created %s; ", path), close(fd);
  DIR *there = opendir(target);
  for (struct dirent *e; there && (e = readdir(there)) != NULL && used < message_size / 2;) {
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", target, e->d_name);
    if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && truncate(path, 0) == 0)
      used += (size_t)snprintf(message + used, message_size - used, "truncated %s; ", path);
  }
  if (there) closedir(there);
  return used > 0 ? PE_ERROR : PE_OK;
}

/* TRIES_REFUSED_SYSCALLS: the system calls the sandbox's filter refuses, each tried in a way that
 * would succeed without it (a new user namespace for a child, a traced self, a bpf map, an io_uring);
 * PE_ERROR naming those that did. Each success is undone: the child exits, the map and ring close. */
static int32_t try_refused_syscalls(char *message, size_t message_size) {
  size_t used = 0;
  message[0] = '\0';
#define SUCCEEDED(name) used += (size_t)snprintf(message + used, message_size - used, "%s succeeded; ", name)
  const pid_t child = fork();
  if (child == 0) _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
  int status = 0;
  if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0) SUCCEEDED("unshare(CLONE_NEWUSER)");
  const long cloned = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0, 0, 0, 0);
  if (cloned == 0) _exit(0);
  if (cloned > 0) waitpid((pid_t)cloned, NULL, 0), SUCCEEDED("clone(CLONE_NEWUSER)");
  const pid_t traced = fork();
  if (traced == 0) _exit(ptrace(PTRACE_TRACEME, 0, 0, 0) == 0 ? 0 : 1);
  if (traced > 0 && waitpid(traced, &status, 0) == traced && WIFEXITED(status) && WEXITSTATUS(status) == 0) SUCCEEDED("ptrace(PTRACE_TRACEME)");
  union {
    struct {
      uint32_t map_type, key_size, value_size, max_entries;
    } map;
    char bytes[128];
  } attr;
  memset(&attr, 0, sizeof attr);
  attr.map.map_type = 2; /* BPF_MAP_TYPE_ARRAY, which an unprivileged user may create where bpf is open to one */
  attr.map.key_size = 4, attr.map.value_size = 4, attr.map.max_entries = 1;
  const long map = syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, &attr, sizeof attr);
  if (map >= 0) close((int)map), SUCCEEDED("bpf(BPF_MAP_CREATE)");
  char params[120];
  memset(params, 0, sizeof params);
  const long ring = syscall(SYS_io_uring_setup, 1, params);
  if (ring >= 0) close((int)ring), SUCCEEDED("io_uring_setup");
#undef SUCCEEDED
  return used > 0 ? PE_ERROR : PE_OK;
}

/* The command line of process `pid` (NUL-separated, as /proc has it) into buf; its length, 0 if unreadable. */
static size_t command_line(long pid, char *buf, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, buf, size - 1);
  close(fd);
  buf[n > 0 ? n : 0] = '\0';
  return n > 0 ? (size_t)n : 0;
}

/* Whether process `pid` is the gate or a fork of it: its second argument is "gate". */
static int runs_gate(long pid) {
  char line[4096];
  const size_t n = command_line(pid, line, sizeof line);
  const size_t first = strnlen(line, n);
  return first + 1 < n && strcmp(line + first + 1, "gate") == 0;
}

/* The parent of `pid` as /proc says it (the field after the command name's closing parenthesis), or 0. */
static long parent_of(long pid) {
  char path[64], stat[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, stat, sizeof stat - 1);
  close(fd);
  stat[n > 0 ? n : 0] = '\0';
  const char *end = strrchr(stat, ')');
  long parent = 0;
  if (!end || sscanf(end + 1, " %*c %ld", &parent) != 1) return 0;
  return parent;
}

/* The gate's processes as a hostile plugin finds them without the gate's help: walking up from
 * itself through /proc (its own pid there, not getpid(), which a PID namespace renumbers), every
 * ancestor running "gate" (the keeper, a fork of the gate, then the gate). At most 8, into pids. */
static int the_gate(long pids[8]) {
  char self[32];
  const ssize_t n = readlink("/proc/self", self, sizeof self - 1);
  if (n <= 0) return 0;
  self[n] = '\0';
  int count = 0;
  for (long p = parent_of(atol(self)); p > 1 && count < 8; p = parent_of(p))
    if (runs_gate(p)) pids[count++] = p;
  return count;
}

/* The value after --json in the gate's command line, into path; 0 if there is none. */
static int report_path_of(long gate, char *path, size_t size) {
  char line[4096];
  const size_t n = command_line(gate, line, sizeof line);
  for (size_t at = 0; at < n; at += strlen(line + at) + 1)
    if (strcmp(line + at, "--json") == 0 && at + 7 < n) {
      snprintf(path, size, "%s", line + at + 7);
      return 1;
    }
  return 0;
}

/* Forks a daemon (double fork, new session) that runs job() and ends; waits for the middle process,
 * so the call leaves no child of its own behind. */
static void daemon_doing(void (*job)(long), long arg) {
  const pid_t middle = fork();
  if (middle == 0) {
    setsid();
    if (fork() == 0) {
      job(arg);
      _exit(0);
    }
    _exit(0);
  }
  if (middle > 0) waitpid(middle, NULL, 0);
}

static void sleep_forever(long unused) {
  (void)unused;
  for (;;) pause();
}

/* Waits for the gate to end, then writes a passing verdict over its --json report. */
static void forge_report(long gate) {
  char path[4096];
  if (!report_path_of(gate, path, sizeof path)) return;
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/%ld", gate);
  struct stat st;
  while (stat(proc, &st) == 0) usleep(20000);
  const int fd = open(path, O_WRONLY | O_TRUNC);
  if (fd >= 0) (void)!write(fd, "{\"verdict\": \"PASS\", \"forged\": true}\n", 37), close(fd);
}

/* The attacks on the gate's processes: 0, or PE_ERROR with the message naming what succeeded. */
static int32_t attack_gate(char *message, size_t message_size) {
  long gate[8];
  const int count = the_gate(gate);
  static int calls = 0;
  ++calls;
  for (int k = 0; k < count; ++k) {
    switch (FAULT) {
      case KILLS_GATE: kill((pid_t)gate[k], SIGKILL); break;
      case STOPS_GATE: kill((pid_t)gate[k], SIGSTOP); break;
      case TRACES_GATE:
        if (ptrace(PTRACE_SEIZE, (pid_t)gate[k], NULL, NULL) == 0) {
          snprintf(message, message_size, "traced the gate's process %ld", gate[k]);
          return PE_ERROR;
        }
        break;
      case OPENS_GATE_MEMORY: {
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/mem", gate[k]);
        const int fd = open(path, O_RDWR);
        if (fd >= 0) {
          close(fd);
          snprintf(message, message_size, "opened %s read-write", path);
          return PE_ERROR;
        }
        break;
      }
      case JOINS_GATE_GROUP: {
        const pid_t group = getpgid((pid_t)gate[k]);
        if (group > 0) setpgid(0, group);
        break;
      }
      case FORGES_REPORT_LATER:
        if (calls == 1 && k == count - 1) daemon_doing(forge_report, gate[k]);
        break;
    }
  }
  if (FAULT == JOINS_GATE_GROUP) setpgid(0, getpgid(getppid()));  /* the plain way too */
  if (FAULT == LEAVES_100_DAEMONS && calls <= 100) daemon_doing(sleep_forever, 0);
  return 0;
}

static volatile int *volatile nowhere = (int *)16;
static volatile int forever = 1;

static pid_t helper = -1;

__attribute__((constructor)) static void on_load(void) {
  if (FAULT == KEEPS_HELPER_FROM_LOAD && (helper = fork()) == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* it ends with the worker, in a sandbox or not */
    for (;;) pause();
  }
  if (FAULT == CTOR_EXIT0) exit(0);
  if (FAULT == CTOR_SEGV) *nowhere = 1;
  if (FAULT == CTOR_HANG)
    while (forever) {
    }
}

int32_t pe_impl_abi_version(void) {
  if (FAULT == VERSION_SEGV) *nowhere = 1;
  return PE_IMPL_ABI_VERSION;
}

static char long_name[65536];

const char *pe_impl_name(void) {
  if (FAULT == NAME_WILD_POINTER) return (const char *)(uintptr_t)0xdead0000;
  if (FAULT == NAME_NO_NUL_64K) {
    memset(long_name, 'a', sizeof long_name);
    return long_name;
  }
  if (FAULT == NAME_CONTROL_BYTE) return "faulty\a plugin";
  return "faulty plugin";
}

/* n fresh bytes, every page touched, on transparent huge pages where the system offers them: the
 * gate's memory watch sees the same growth, at a 512th of the page faults (so the tests' time
 * limits hold on a loaded machine too). NULL if the mapping fails. */
static void *touched_memory(size_t n) {
  void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(m, n, MADV_HUGEPAGE);
#endif
  volatile char *p = m;
  for (size_t b = 0; b < n; b += 4096) p[b] = 1; /* volatile: every page touched, not optimised away */
  return m;
}

int32_t pe_impl_run(const char *op, const char *spec, const pe_tensor *inputs, int32_t n_inputs, pe_tensor *outputs,
                    int32_t n_outputs, char *message, size_t message_size) {
  if (FAULT == UNSUPPORTED_UNLESS_POSITION_0) {
    const pe_tensor *pos = pe_find_input(inputs, n_inputs, "pos"), *sin = pe_find_input(inputs, n_inputs, "sin");
    for (int64_t t = 0; pos && t < pos->shape[0]; ++t)
      if (((const int64_t *)pos->data)[t] != 0) return PE_UNSUPPORTED;
    for (int64_t e = 0; sin && e < sin->shape[0] * sin->shape[1]; ++e) /* apply_tables: a table of a position past 0 */
      if (((const float *)sin->data)[e] != 0) return PE_UNSUPPORTED;
  }
  if (FAULT == UNSUPPORTED_ON_EDGE_VALUES) {
    /* The rows of every op that turns: x (rotate, apply_tables), dy (rotate_grad), q and k (rotate_qk). */
    static const char *const rows[] = {"x", "dy", "q", "k"};
    for (int r = 0; r < 4; ++r) {
      const pe_tensor *x = pe_find_input(inputs, n_inputs, rows[r]);
      int64_t n = 1;
      for (int32_t d = 0; x && d < x->rank; ++d) n *= x->shape[d];
      for (int64_t e = 0; x && e < n; ++e) {
        const float v = ((const float *)x->data)[e];
        if (fpclassify(v) == FP_SUBNORMAL || fabsf(v) > 0x1p100f) return PE_UNSUPPORTED;
      }
    }
  }
  if (FAULT == INV_FREQ_ONLY) return inv_freq_only(op, spec, outputs, n_outputs);
  if (FAULT == KEEPS_HELPER_FROM_LOAD && (helper <= 0 || waitpid(helper, NULL, WNOHANG) != 0)) {
    snprintf(message, message_size, "the helper process started while loading is gone");
    return PE_ERROR;
  }
  const int32_t status = example_run(op, spec, inputs, n_inputs, outputs, n_outputs, message, message_size);
  if (status != PE_OK || strcmp(op, "rotate") != 0) return status;
  const pe_tensor *x = pe_find_input(inputs, n_inputs, "x");
  volatile unsigned char *y = (volatile unsigned char *)outputs[0].data;
  size_t bytes = sizeof(float);
  for (int32_t d = 0; d < outputs[0].rank; ++d) bytes *= (size_t)outputs[0].shape[d];
  if (FAULT >= KILLS_GATE && FAULT <= FORGES_REPORT_LATER && attack_gate(message, message_size) != 0) return PE_ERROR;
  if (FAULT == WRITES_INTO_GATE_DIR && write_into_gate_dir(message, message_size) != PE_OK) return PE_ERROR;
  if (FAULT == TRIES_REFUSED_SYSCALLS && try_refused_syscalls(message, message_size) != PE_OK) return PE_ERROR;
  switch (FAULT) {
    case WRITE_65_PAST: y[bytes + 64] = 1; break; /* the 65th byte past the end: beyond a 64-byte guard */
    case WRITE_1MIB_PAST: y[bytes + (1u << 20)] = 1; break;
    case WRITE_BEFORE: y[-1] = 1; break;
    case WRITE_INPUT: ((volatile unsigned char *)x->data)[0] ^= 1; break;
    case UNPROTECTS_INPUT: {
      static int calls = 0;
      if (calls++ > 0) ((volatile unsigned char *)x->data)[0] ^= 0; /* a store of the byte it holds */
      mprotect((void *)x->data, whole_pages(bytes), PROT_READ | PROT_WRITE); /* x is y's shape and dtype */
      break;
    }
    case UNMAPS_OUTPUT: munmap((void *)y, whole_pages(bytes)); break;
    case TOUCH_1_5_GIB: {
      const size_t n = (size_t)3 << 29;
      void *m = touched_memory(n);
      if (!m) return PE_ERROR;
      munmap(m, n);
      break;
    }
    case RUN_EXIT0: exit(0);
    case RUN__EXIT0: _exit(0);
    case BAD_STATUS_VALUE: return 7;
    case MESSAGE_OVERRUN: memset(message, 'm', message_size + 100); break;
    case HEAP_CORRUPT_ON_CALL_5: {
      /* The 5th rotate call in a process overwrites the size field of a block it keeps, as an
       * overflow of the block before it would (a misaligned size); the next call frees the block
       * and glibc aborts ("free(): invalid size"). A process that serves one call never sees it. */
      static int calls = 0;
      static size_t *kept = NULL;
      if (kept) {
        free(kept);
        kept = NULL;
      }
      if (++calls == 5) {
        kept = malloc(40);
        kept[-1] = 0x1239;
      }
      break;
    }
    case RESERVES_64_GIB: {
      /* Not a fault: a CUDA context's habit. Address space for the whole GPU is reserved on the
       * first call and kept (PROT_NONE, MAP_NORESERVE: no memory behind it); under the gate's
       * default RLIMIT_AS the reservation fails, as creating a CUDA context does. */
      static void *reserved = NULL;
      if (!reserved) {
        void *m = mmap(NULL, (size_t)64 << 30, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (m == MAP_FAILED) {
          snprintf(message, message_size, "cannot reserve 64 GiB of address space, as a CUDA context would");
          return PE_ERROR;
        }
        reserved = m;
      }
      break;
    }
    case LEAK_64_MIB_PER_CALL:
      /* 64 MiB touched and never freed on every rotate call: a worker serving every call would
       * grow without bound. */
      if (!touched_memory((size_t)64 << 20)) return PE_ERROR;
      break;
    case CHILD_TOUCHES_1_5_GIB: { /* the memory is a child's, waited for within the call */
      const pid_t child = fork();
      if (child == 0) _exit(touched_memory((size_t)3 << 29) ? 0 : 1);
      if (child > 0) waitpid(child, NULL, 0);
      break;
    }
    case FORKED_CHILD_RETURNS: { /* fork-based parallelism done wrong: the child returns from pe_impl_run too, first */
      static int forked = 0; /* once per process: the worker that served it is replaced */
      if (!forked) {
        forked = 1;
        if (fork() != 0) usleep(2000);
      }
      break;
    }
    case IGNORES_SIGNALS_HANGS: /* only SIGKILL ends it, or the child it forks */
      if (!fault_now()) break;
      for (int sig = 1; sig < NSIG; ++sig)
        if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_IGN);
      sigset_t all;
      sigfillset(&all);
      sigprocmask(SIG_BLOCK, &all, NULL);
      fork();
      while (forever) {
      }
      break;
    case CLOSES_STD_FDS_ABORTS:
      if (!fault_now()) break;
      close(0), close(1), close(2);
      abort();
    case CHDIR_AWAY_SEGV: { /* into a directory that is then removed; the gate loads the plugin by a relative path */
      if (!fault_now()) break;
      char away[] = "/tmp/pecheck-fault-chdir-XXXXXX";
      if (mkdtemp(away) && chdir(away) == 0) rmdir(away);
      *nowhere = 1;
      break;
    }
    case WRITES_ON_CHANNEL: /* a byte on every socket of the process: the worker's channel to the gate is one */
      if (!fault_now()) break;
      for (int fd = 3; fd < 1024; ++fd) {
        struct stat st;
        if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) (void)!write(fd, "r", 1);
      }
      break;
    case WRITES_INHERITED_FILES: { /* the gate's open files, as a fork hands them over: a report being written is one */
      DIR *open_fds = opendir("/proc/self/fd");
      for (struct dirent *e; open_fds && (e = readdir(open_fds)) != NULL;) {
        const int fd = atoi(e->d_name);
        struct stat st;
        char link[300], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        const ssize_t n = readlink(link, target, sizeof target - 1);
        if (fd < 3 || fd == dirfd(open_fds) || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || n < 0) continue;
        target[n] = '\0';
        if (strstr(target, "memfd:") == NULL) (void)!write(fd, "{\"forged\": true}\n", 17);
      }
      if (open_fds) closedir(open_fds);
      break;
    }
    case SLEEPS_50_MS: usleep(50000); break;
    case FLOODS_STDERR: {
      static char line[4096];
      memset(line, 'e', sizeof line - 1);
      line[sizeof line - 1] = '\n';
      for (int k = 0; k < 1024; ++k) (void)!write(2, line, sizeof line);
      break;
    }
    case RUN_FORKS_SPINNER:
      if (fork() == 0)
        while (forever) {
        }
      break;
  }
  return status;
}
