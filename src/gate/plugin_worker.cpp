// A plugin's worker process: loads the plugin once, then runs each call the gate lays out in shared
// memory, inputs read-only and every span fenced by PROT_NONE pages, and reports in the control block.
#include "gate/plugin_worker.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gate/pecheck/impl.h"

namespace pe::gate::worker {

std::string_view where(std::int32_t s) {
  switch (s) {
    case started: return "before loading it";
    case loading: return "while loading it (dlopen and its constructors)";
    case loaded: return "after loading it";
    case in_version: return "in pe_impl_abi_version";
    case in_name: return "in pe_impl_name";
    case ready: return "between calls (a thread or handler of the plugin's, while no call ran)";
    case preparing: return "while the worker prepared a call (before pe_impl_run)";
    case running: return "inside pe_impl_run";
    default: return "after pe_impl_run returned";
  }
}

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}
std::size_t whole_pages(std::size_t bytes) { return (bytes + page_size() - 1) / page_size() * page_size(); }

call_layout call_layout::of(std::size_t request_bytes, const std::vector<io_tensor>& inputs, const std::vector<io_tensor>& outputs) {
  call_layout l;
  const auto place = [&](std::string what, std::size_t bytes, bool read_only) {
    const std::size_t room = whole_pages(bytes);
    l.spans.push_back({std::move(what), l.bytes, bytes, room, read_only});
    l.bytes += room + page_size();
  };
  place("the request", request_bytes, true);
  place("the message buffer", message_bytes, false);
  for (const auto& t : inputs) place("input " + t.name, t.bytes.size(), true);
  for (const auto& t : outputs) place("output " + t.name, t.bytes.size(), false);
  l.inputs = inputs.size();
  return l;
}

namespace {

using json = nlohmann::json;
using abi_version_fn = int32_t (*)();
using name_fn = const char* (*)();
using run_fn = int32_t (*)(const char*, const char*, const pe_tensor*, int32_t, pe_tensor*, int32_t, char*, size_t);

// The fault handler (SIGSEGV, SIGBUS) records where it faulted, then dies of the signal.
control_block* faulting_control = nullptr;
alignas(16) char fault_stack[64 * 1024];

void on_fault(int sig, siginfo_t* info, void* context) {
  if (info->si_code > 0 && faulting_control) {  // raised by the kernel for an access, not sent by kill()
    mprotect(faulting_control, whole_pages(sizeof(control_block)), PROT_READ | PROT_WRITE);
    faulting_control->fault_signal = sig;
    faulting_control->fault_address = reinterpret_cast<std::uintptr_t>(info->si_addr);
#if defined(__x86_64__)
    faulting_control->fault_access = (static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
#else
    (void)context;
    faulting_control->fault_access = -1;
#endif
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

[[noreturn]] void fail(control_block& c, const std::string& why) {
  std::snprintf(c.error, sizeof c.error, "%s", why.c_str());
  c.stage = failed;
  _exit(0);
}

// /proc/self files kept open for the worker's life: its sizes read before each call, and its
// peak resident set reset there (clear_refs 5, Linux 4.0 on) so the gate's reading of the peak
// after the call is the call's own.
struct self_files {
  int statm = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  int clear_refs = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);

  bool reset_peak() const { return clear_refs >= 0 && pwrite(clear_refs, "5", 1, 0) == 1; }
  // Address space and resident set, in pages.
  std::pair<unsigned long, unsigned long> pages() const {
    char text[128] = {};
    unsigned long size = 0, resident = 0;
    if (statm >= 0 && pread(statm, text, sizeof text - 1, 0) > 0) std::sscanf(text, "%lu %lu", &size, &resident);
    return {size, resident};
  }
};

// The address space may grow by `headroom` bytes from `size_pages` (a soft limit, raised again
// before each call, within the hard limit the gate was given); no_address_space_limit leaves it as
// the gate's.
void cap_address_space(unsigned long size_pages, std::size_t headroom) {
  if (headroom == no_address_space_limit) return;
  rlimit limit{};
  getrlimit(RLIMIT_AS, &limit);
  const rlim_t cap = size_pages * page_size() + headroom;
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? cap : std::min(cap, limit.rlim_max);
  setrlimit(RLIMIT_AS, &limit);
}

// Before any plugin code: stdout to the gate's log (the report is the gate's), first in line for the
// OOM killer, orphans of the plugin's reparented here (so a call that leaves a process is seen), a
// fault handler on its own stack.
void enter(control_block& c, const self_files& self, std::size_t address_space) {
  dup2(2, 1);
  if (const int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC); fd >= 0) {
    (void)!write(fd, "1000", 4);
    close(fd);
  }
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const auto [size, resident] = self.pages();
  c.baseline_resident_pages = resident;
  c.single_use = self.reset_peak() ? 0 : 1;
  cap_address_space(size, address_space);
  faulting_control = &c;
  const stack_t stack{fault_stack, 0, sizeof fault_stack};
  sigaltstack(&stack, nullptr);
  struct sigaction on {};
  on.sa_sigaction = on_fault;
  on.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &on, nullptr);
  sigaction(SIGBUS, &on, nullptr);
}

run_fn load(const std::string& path, control_block& c) {
  c.stage = loading;
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) fail(c, fmt::format("cannot load: {}", dlerror()));
  c.stage = loaded;
  const auto symbol = [&](const char* name) {
    void* s = dlsym(handle, name);
    if (!s) fail(c, fmt::format("does not export {} (see pecheck/impl.h)", name));
    return s;
  };
  const auto version = reinterpret_cast<abi_version_fn>(symbol("pe_impl_abi_version"));
  const auto name = reinterpret_cast<name_fn>(symbol("pe_impl_name"));
  const auto run = reinterpret_cast<run_fn>(symbol("pe_impl_run"));
  c.stage = in_version;
  c.abi_version = version();
  c.stage = in_name;
  const char* n = name();
  // At most the limit and one more byte are read: a name without its NUL is not read past that.
  c.name_length = n ? strnlen(n, plugin_name_limit + 1) : ~std::uint64_t{0};
  if (n) std::memcpy(c.name, n, std::min<std::size_t>(c.name_length, plugin_name_limit));
  return run;
}

// True if the plugin has a child process (running, or ended and reaped here).
bool has_children() {
  int status = 0;
  const pid_t p = waitpid(-1, &status, WNOHANG);
  return p >= 0;  // 0: a child runs; > 0: one had ended (now reaped); -1 (ECHILD): none
}

// In the sandbox's PID namespace the worker's parent, the keeper, is outside it (getppid() is 0),
// and the namespace holds init, the worker and what the plugin started. There kill(-1, ...) reaches
// every process but init and the worker itself; nowhere else is it sent.
bool in_own_pid_namespace() { return getppid() == 0; }
// Whether a process of the plugin's runs, or waits to be reaped, beside the worker in its namespace.
bool others_in_namespace() { return kill(-1, 0) == 0; }

// Kills every process of the plugin's in the namespace and reaps them (the worker is their
// subreaper; init reaps any the plugin orphaned past it). False if one is still there after two
// seconds (stuck in the kernel): the worker is replaced then, which ends the namespace.
bool end_others_in_namespace() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (;;) {
    if (kill(-1, SIGKILL) != 0 && errno == ESRCH) return true;
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (std::chrono::steady_clock::now() > until) return false;
    usleep(50);
  }
}

// What the call left behind. With `end_in_place`, the worker ends it and serves on: a call that
// leaves a process costs a kill, not a new worker.
void collect_leftovers(control_block& c, bool end_in_place) {
  if (!end_in_place) {
    c.left_processes = has_children() ? 1 : 0;
    return;
  }
  c.left_processes = others_in_namespace() ? 1 : 0;
  c.ended_in_place = c.left_processes && end_others_in_namespace() ? 1 : 0;
}

// A call's memory as the worker maps it: the span between far guards, with the protections of the
// layout it was mapped for. Calls of one layout (an audit's) reuse it: a fresh mapping has every page
// faulted in anew, which costs more than the plugin's own work on a call of millions of elements.
struct call_mapping {
  void* reserved = nullptr;
  std::size_t total = 0, bytes = 0;

  unsigned char* base() const { return static_cast<unsigned char*>(reserved) + far_guard_bytes; }
  void unmap() {
    if (reserved) munmap(reserved, total);
    reserved = nullptr, total = bytes = 0;
  }
};

// The spans' protections: the request and inputs read-only, the message and outputs writable, a
// PROT_NONE page after each. Setting a range to the protection it has changes nothing, so on a
// reused mapping this is a few system calls, and it restores whatever a plugin changed; false where
// part of the mapping is gone (a plugin unmapped it).
bool protect(unsigned char* base, const std::vector<span>& spans) {
  for (const auto& s : spans) {
    if (mprotect(base + s.offset, s.room, s.read_only ? PROT_READ : PROT_READ | PROT_WRITE) != 0) return false;
    if (mprotect(base + s.offset + s.room, page_size(), PROT_NONE) != 0) return false;
  }
  return true;
}

// One call: its memory mapped between far guards (or the last call's mapping, for the same
// layout), the request read, pe_impl_run called under the protections.
void call(control_block& c, const self_files& self, int memory, run_fn run, pid_t leader, std::size_t address_space, bool end_in_place,
          call_mapping& mapped) {
  c.stage = preparing;
  std::uint64_t head[2] = {};  // the layout's bytes, the request's bytes
  if (pread(memory, head, sizeof head, 0) != static_cast<ssize_t>(sizeof head)) fail(c, "the worker cannot read the call's request");
  const std::size_t bytes = head[0], total = bytes + 2 * far_guard_bytes;
  // The request read from the file, not the mapping: what the last call's plugin did to the mapping
  // does not reach it.
  std::vector<std::uint8_t> packed(head[1]);
  if (pread(memory, packed.data(), packed.size(), sizeof head) != static_cast<ssize_t>(packed.size())) fail(c, "the worker cannot read the call's request");
  const json request = json::from_msgpack(packed);
  std::vector<span> spans;
  for (const auto& s : request["spans"]) spans.push_back({"", s[0], s[1], s[2], s[3]});
  if (mapped.reserved && (mapped.bytes != bytes || !protect(mapped.base(), spans))) mapped.unmap();
  if (!mapped.reserved) {
    cap_address_space(self.pages().first, address_space);  // the headroom from now, so the reservation below fits
    void* reserved = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) fail(c, fmt::format("the worker cannot reserve {} bytes for the call (address space exhausted)", total));
    mapped = {reserved, total, bytes};
    // Populated now, in one go, rather than a fault per page as the plugin touches them.
    if (mmap(mapped.base(), bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, memory, 0) == MAP_FAILED) {
      mapped.unmap();
      fail(c, "the worker cannot map the call's memory");
    }
    if (!protect(mapped.base(), spans)) fail(c, "the worker cannot protect the call's memory");
  }
  unsigned char* const base = mapped.base();
  c.region_base = reinterpret_cast<std::uintptr_t>(mapped.reserved);
  const std::string op = request["op"], spec = request["spec"];
  // Shapes and names live here, in the worker's own memory, for the pe_tensors to point at.
  std::vector<std::vector<std::int64_t>> shapes;
  std::vector<std::string> names;
  for (const auto* list : {&request["inputs"], &request["outputs"]})
    for (const auto& t : *list) shapes.push_back(t["shape"]), names.push_back(t["name"]);
  std::vector<pe_tensor> in, out;
  std::size_t k = 0;
  for (const auto* list : {&request["inputs"], &request["outputs"]}) {
    for (const auto& t : *list) {
      pe_tensor p{names[k].c_str(), t["dtype"].get<int32_t>(), static_cast<int32_t>(shapes[k].size()), shapes[k].data(),
                  base + spans[2 + k].offset};
      (list == &request["inputs"] ? in : out).push_back(p);
      ++k;
    }
  }
  // The address space may grow by the headroom from here; the peak resident set starts here.
  const auto [size, resident] = self.pages();
  cap_address_space(size, address_space);
  if (!c.single_use) c.baseline_resident_pages = resident;
  self.reset_peak();
  // The largest resident set of a child process reaped so far: one the plugin forks and waits for
  // during the call counts against the budget too, as it did when the call was a process of its own.
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  const long children_peak_before = children.ru_maxrss;
  char* message = reinterpret_cast<char*>(base + spans[1].offset);
  c.stage = running;
  mprotect(&c, whole_pages(sizeof c), PROT_READ);
  const int32_t status = run(op.c_str(), spec.c_str(), in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()),
                             message, message_bytes);
  // A process the plugin forked that returned from pe_impl_run is not the worker: it must not
  // report, answer or serve.
  if (getpid() != leader) _exit(0);
  mprotect(&c, whole_pages(sizeof c), PROT_READ | PROT_WRITE);
  c.status = status;
  collect_leftovers(c, end_in_place);
  getrusage(RUSAGE_CHILDREN, &children);
  c.children_peak_pages = children.ru_maxrss > children_peak_before ? static_cast<std::uint64_t>(children.ru_maxrss) * 1024 / page_size() : 0;
  c.region_base = 0;
  c.stage = returned;
}

}  // namespace

void serve(const std::string& path, control_block& c, int channel, int memory, std::size_t address_space) {
  const self_files self;
  enter(c, self, address_space);
  const run_fn run = load(path, c);
  const pid_t leader = getpid();
  // Processes the plugin started while loading are its helpers, and calls may rely on them: they
  // are not killed, and a call that leaves more gets a new worker, as outside the namespace.
  const bool end_in_place = in_own_pid_namespace() && !others_in_namespace();
  c.stage = ready;
  call_mapping mapped;  // kept from call to call
  if (write(channel, "s", 1) != 1) _exit(0);
  for (;;) {
    char byte = 0;
    const ssize_t n = read(channel, &byte, 1);
    if (n == 0) _exit(0);  // the gate is done with this worker
    if (n < 0) {
      if (errno == EINTR) continue;
      _exit(0);
    }
    call(c, self, memory, run, leader, address_space, end_in_place, mapped);
    c.stage = ready;
    c.answered = c.call_number;
    if (write(channel, "r", 1) != 1) _exit(0);
  }
}

}  // namespace pe::gate::worker
