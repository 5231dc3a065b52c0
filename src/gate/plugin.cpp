// The C ABI plugin behind pecheck/impl.h. The gate never loads it: a child queries it once (version,
// name), then each call forks a child that loads it again, under a time and memory limit, its inputs
// read-only and its outputs page-aligned between PROT_NONE guard pages in shared memory.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "gate/implementation.hpp"
#include "gate/pecheck/impl.h"
#include "gate/process.hpp"
#include "pe/error.hpp"

namespace pe::gate {

std::string_view status_name(call_status s) {
  switch (s) {
    case call_status::ok: return "ok";
    case call_status::unsupported: return "unsupported";
    case call_status::error: return "error";
    case call_status::crashed: return "crashed";
    case call_status::timed_out: return "timed out";
    case call_status::out_of_bounds: return "wrote outside an output";
    case call_status::bad_output: return "bad output";
  }
  return "?";
}

bool is_fatal(call_status s) { return s == call_status::crashed || s == call_status::timed_out || s == call_status::out_of_bounds; }

namespace {

constexpr unsigned char guard_value = 0xA5;
constexpr std::size_t message_bytes = 1024;
// A write this far outside a call's region still lands on PROT_NONE pages (reserved address
// space only: no memory behind it).
constexpr std::size_t far_guard_bytes = std::size_t{64} << 20;
// Resident memory a call may add to what its process starts with, watched by the gate; the
// address space may grow by 4 GiB more (RLIMIT_AS), so an allocation far past the budget fails
// at once in the plugin instead of being touched page by page.
constexpr std::size_t memory_budget_bytes = std::size_t{1} << 30;
constexpr std::size_t address_space_headroom = std::size_t{4} << 30;
// No valid pe_status: a call that never returns leaves it there.
constexpr std::int32_t status_sentinel = 0x5e771e;

using abi_version_fn = int32_t (*)();
using name_fn = const char* (*)();
using run_fn = int32_t (*)(const char*, const char*, const pe_tensor*, int32_t, pe_tensor*, int32_t, char*, size_t);

// How far a child got, so an exit or a signal can say where it happened.
enum stage : std::int32_t { started, loading, loaded, in_version, in_name, running, returned, failed };

std::string_view where(std::int32_t s) {
  switch (s) {
    case started: return "before loading it";
    case loading: return "while loading it (dlopen and its constructors)";
    case loaded: return "after loading it";
    case in_version: return "in pe_impl_abi_version";
    case in_name: return "in pe_impl_name";
    case running: return "inside pe_impl_run";
    default: return "after pe_impl_run returned";
  }
}

// What a child reports to the gate: the only page of the region the implementation cannot write.
struct control_block {
  std::int32_t stage;
  std::int32_t status;  // pe_impl_run's return, status_sentinel until it returns
  std::int32_t abi_version;
  std::int32_t fault_signal;  // set by the child's fault handler
  std::int32_t fault_access;  // 1 write, 0 read, -1 unknown
  std::uint64_t fault_address;
  std::uint64_t baseline_resident_pages;  // the child's resident set when it started
  std::uint64_t name_length;               // strnlen(name, name_limit + 1), or ~0 for NULL
  char name[plugin_name_limit + 1];
  char error[512];
};

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return size;
}
std::size_t whole_pages(std::size_t bytes) { return (bytes + page_size() - 1) / page_size() * page_size(); }

// A tensor (or the message buffer) in the region: `bytes` used, `room` up to its guard page.
struct span {
  std::string what;
  unsigned char* data;
  std::size_t bytes, room;
  bool input;
};

// One child's memory, mapped before the fork so both processes see it at the same address:
// [far guard | control | message | guard | input | guard | ... | output | guard | ... | far guard].
// Every tensor starts a page (so it is 64-byte aligned); the bytes between its end and its guard
// page hold guard_value, checked after the call.
class call_region {
 public:
  call_region(const std::vector<io_tensor>& inputs, const std::vector<io_tensor>& outputs) {
    const std::size_t page = page_size();
    control_room_ = whole_pages(sizeof(control_block));
    std::size_t content = control_room_ + 2 * page;  // control, message, its guard
    for (const auto* list : {&inputs, &outputs})
      for (const auto& t : *list) content += whole_pages(t.bytes.size()) + page;
    total_ = content + 2 * far_guard_bytes;
    reserved_ = mmap(nullptr, total_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved_ == MAP_FAILED) throw std::runtime_error("gate: cannot reserve memory for a call");
    base_ = static_cast<unsigned char*>(reserved_) + far_guard_bytes;
    if (mmap(base_, content, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
      munmap(reserved_, total_);
      throw std::runtime_error("gate: cannot map shared memory for a call");
    }
    control().status = status_sentinel;
    inputs_ = inputs.size();
    unsigned char* at = base_ + control_room_;
    place("the message buffer", at, message_bytes, false);
    for (const auto& t : inputs) std::memcpy(place("input " + t.name, at, t.bytes.size(), true), t.bytes.data(), t.bytes.size());
    for (const auto& t : outputs) place("output " + t.name, at, t.bytes.size(), false);
  }
  ~call_region() { munmap(reserved_, total_); }
  call_region(const call_region&) = delete;
  call_region& operator=(const call_region&) = delete;

  control_block& control() { return *reinterpret_cast<control_block*>(base_); }
  char* message() { return reinterpret_cast<char*>(spans_[0].data); }
  unsigned char* input(std::size_t k) { return spans_[1 + k].data; }
  unsigned char* output(std::size_t k) { return spans_[1 + inputs_ + k].data; }

  // In the child, just before pe_impl_run: the control block and the inputs read-only, guard pages
  // inaccessible. The pages stay as they were in the gate.
  void protect_for_call() {
    mprotect(base_, control_room_, PROT_READ);
    for (const auto& s : spans_) {
      if (s.input) mprotect(s.data, s.room, PROT_READ);
      mprotect(s.data + s.room, page_size(), PROT_NONE);
    }
  }
  void release_control() { mprotect(base_, control_room_, PROT_READ | PROT_WRITE); }

  // A fault at `address` as the call's failure, or nothing if the address is not the region's.
  std::optional<call_result> fault_at(std::uintptr_t address, int access, int signal) const {
    const auto* a = reinterpret_cast<const unsigned char*>(address);
    if (a < static_cast<const unsigned char*>(reserved_) || a >= static_cast<const unsigned char*>(reserved_) + total_) return std::nullopt;
    const std::string verb = access == 1 ? "wrote" : access == 0 ? "read" : "touched";
    const auto outside = [&](std::string text) {
      // Reading outside a tensor is a crash of the implementation; writing outside its outputs is a stray write.
      if (access == 1) return call_result{call_status::out_of_bounds, std::move(text), {}};
      return call_result{call_status::crashed, fmt::format("killed by signal {} ({}): {}", signal, strsignal(signal), text), {}};
    };
    if (a >= base_ && a < base_ + control_room_) return outside(verb + " into the gate's control block");
    const span* nearest = nullptr;
    std::size_t distance = SIZE_MAX;
    for (const auto& s : spans_) {
      const std::size_t d = a < s.data ? static_cast<std::size_t>(s.data - a) : a < s.data + s.bytes ? 0 : static_cast<std::size_t>(a - s.data - s.bytes);
      if (d < distance) distance = d, nearest = &s;
    }
    if (distance == 0) return outside(fmt::format("{} into {}", verb, nearest->what));
    if (a < nearest->data) return outside(fmt::format("{} before the {} bytes of {}, {} bytes before it", verb, nearest->bytes, nearest->what, distance));
    return outside(fmt::format("{} past the {} bytes of {}, at byte {}", verb, nearest->bytes, nearest->what, a - nearest->data));
  }

  // A write between an output's (or the message's) end and its guard page, if any.
  std::optional<std::string> stray_write() const {
    for (const auto& s : spans_) {
      if (s.input) continue;
      for (std::size_t b = s.bytes; b < s.room; ++b)
        if (s.data[b] != guard_value) return fmt::format("wrote past the {} bytes of {}, at byte {}", s.bytes, s.what, b);
    }
    return std::nullopt;
  }

 private:
  unsigned char* place(std::string what, unsigned char*& at, std::size_t bytes, bool input) {
    const std::size_t room = whole_pages(bytes);
    std::memset(at + bytes, guard_value, room - bytes);
    spans_.push_back({std::move(what), at, bytes, room, input});
    at += room + page_size();
    return spans_.back().data;
  }

  void* reserved_ = nullptr;
  unsigned char* base_ = nullptr;
  std::size_t total_ = 0, control_room_ = 0, inputs_ = 0;
  std::vector<span> spans_;  // the message buffer, the inputs, the outputs
};

// The child's fault handler (SIGSEGV, SIGBUS) records where it faulted, then dies of the signal.
control_block* faulting_control = nullptr;
std::size_t faulting_control_room = 0;
alignas(16) char fault_stack[64 * 1024];

void on_fault(int sig, siginfo_t* info, void* context) {
  if (info->si_code > 0 && faulting_control) {  // raised by the kernel for an access, not sent by kill()
    mprotect(faulting_control, faulting_control_room, PROT_READ | PROT_WRITE);
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

// The two numbers of /proc/<pid>/statm the gate reads: address space and resident set, in pages.
struct memory_pages {
  std::uint64_t size = 0, resident = 0;
};
memory_pages memory_of(const char* statm) {
  memory_pages m;
  char text[128] = {};
  const int fd = open(statm, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return m;
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n > 0) std::sscanf(text, "%lu %lu", &m.size, &m.resident);
  return m;
}

// In a fresh child, before any plugin code: stdout to the gate's log (the report is the gate's),
// first in line for the OOM killer, the address space capped, a fault handler on its own stack.
void enter_child(control_block& c) {
  dup2(2, 1);
  if (const int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC); fd >= 0) {
    (void)!write(fd, "1000", 4);
    close(fd);
  }
  const memory_pages m = memory_of("/proc/self/statm");
  c.baseline_resident_pages = m.resident;
  const rlim_t cap = m.size * page_size() + address_space_headroom;
  const rlimit limit{cap, cap};
  setrlimit(RLIMIT_AS, &limit);
  faulting_control = &c;
  faulting_control_room = whole_pages(sizeof(control_block));
  const stack_t stack{fault_stack, 0, sizeof fault_stack};
  sigaltstack(&stack, nullptr);
  struct sigaction on{};
  on.sa_sigaction = on_fault;
  on.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &on, nullptr);
  sigaction(SIGBUS, &on, nullptr);
}

void copy_text(char (&into)[512], const char* text) {
  std::snprintf(into, sizeof into, "%s", text ? text : "");
}

// How a child ended, seen from the gate.
struct child_end {
  bool ended = false;          // before the deadline
  bool out_of_memory = false;  // grew past the budget (killed, or peaked there before it ended)
  int status = 0;              // wait status
};

// Runs body in a child of its own group under the deadline and the memory budget, then kills the
// group. The budget is watched from outside (resident set every 5 ms, and its peak at the end),
// because a plugin that hits RLIMIT_AS only sees a failed allocation, and dies of it any way it likes.
child_end run_isolated(call_region& region, int timeout_ms, const std::function<void()>& body) {
  process::child c(body);
  const std::string statm = fmt::format("/proc/{}/statm", c.pid());
  const std::uint64_t budget_pages = memory_budget_bytes / page_size();
  const auto grown_pages = [&](std::uint64_t resident) {
    const std::uint64_t base = region.control().baseline_resident_pages;
    return base > 0 && resident > base ? resident - base : 0;
  };
  child_end e;
  const auto within_budget = [&] {
    e.out_of_memory = grown_pages(memory_of(statm.c_str()).resident) > budget_pages;
    return !e.out_of_memory;
  };
  e.ended = c.wait_until(process::clock_type::now() + std::chrono::milliseconds(timeout_ms), within_budget);
  rusage used{};
  e.status = c.finish(&used);
  e.out_of_memory = e.out_of_memory || grown_pages(static_cast<std::uint64_t>(used.ru_maxrss) * 1024 / page_size()) > budget_pages;
  return e;
}

std::string out_of_memory_message() {
  return fmt::format("out of memory: the call grew past {} MiB of resident memory, the gate's limit per call", memory_budget_bytes >> 20);
}

// What went wrong with a child that did not finish its work, if anything: OOM, deadline, a signal, an exit.
std::optional<call_result> abnormal_end(const child_end& e, call_region& region, int timeout_ms, std::int32_t done_stage) {
  const control_block& c = region.control();
  if (e.out_of_memory) return call_result{call_status::crashed, out_of_memory_message(), {}};
  if (!e.ended) return call_result{call_status::timed_out, fmt::format("no answer within {} ms", timeout_ms), {}};
  if (WIFSIGNALED(e.status)) {
    const int sig = WTERMSIG(e.status);
    if (c.fault_signal == sig)
      if (auto fault = region.fault_at(c.fault_address, c.fault_access, sig)) return fault;
    return call_result{call_status::crashed, fmt::format("killed by signal {} ({}) {}", sig, strsignal(sig), where(c.stage)), {}};
  }
  if (c.stage == failed) return call_result{call_status::crashed, c.error, {}};
  if (c.stage != done_stage) {
    return call_result{call_status::crashed, fmt::format("exited with status {} {}", WEXITSTATUS(e.status), where(c.stage)), {}};
  }
  return std::nullopt;
}

// The plugin's name as the query child copied it, or why it is unusable.
std::string checked_name(const control_block& c, const std::string& path) {
  if (c.name_length == ~std::uint64_t{0}) return path;  // NULL: the path stands for it
  if (c.name_length > plugin_name_limit) {
    throw input_error(fmt::format("--impl {}: pe_impl_name returned a name of more than {} bytes, or one without its NUL", path, plugin_name_limit));
  }
  const std::string name(c.name, c.name_length);
  for (std::size_t k = 0; k < name.size(); ++k) {
    const auto byte = static_cast<unsigned char>(name[k]);
    if (byte < 0x20 || byte == 0x7f) {
      throw input_error(fmt::format("--impl {}: pe_impl_name returned a name with the unprintable byte 0x{:02x} at {}", path, byte, k));
    }
  }
  return name.empty() ? path : name;
}

class plugin final : public implementation {
 public:
  plugin(std::string path, int timeout_ms) : path_(std::move(path)), timeout_ms_(timeout_ms) { name_ = query(); }

  std::string name() const override { return name_; }

  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    call_region region(inputs, outputs);
    const child_end e = run_isolated(region, timeout_ms_, [&] { call_child(region, op, spec, inputs, outputs); });
    if (auto r = abnormal_end(e, region, timeout_ms_, returned)) return *r;
    if (auto stray = region.stray_write()) return {call_status::out_of_bounds, *stray, {}};
    const control_block& c = region.control();
    call_result r;
    r.message.assign(region.message(), strnlen(region.message(), message_bytes));
    if (c.status == PE_UNSUPPORTED) {
      r.status = call_status::unsupported;
      return r;
    }
    if (c.status == PE_ERROR) {
      r.status = call_status::error;
      if (r.message.empty()) r.message = "pe_impl_run returned PE_ERROR";
      return r;
    }
    if (c.status != PE_OK) return {call_status::bad_output, fmt::format("pe_impl_run returned {}, not PE_OK, PE_UNSUPPORTED or PE_ERROR", c.status), {}};
    r.outputs = outputs;
    for (std::size_t k = 0; k < outputs.size(); ++k) std::memcpy(r.outputs[k].bytes.data(), region.output(k), outputs[k].bytes.size());
    return r;
  }

 private:
  // Loads the plugin in a child and reads its version and name there; any fault is input_error (exit 2).
  std::string query() {
    call_region region({}, {});
    const child_end e = run_isolated(region, timeout_ms_, [&] { query_child(region.control()); });
    if (const auto r = abnormal_end(e, region, timeout_ms_, returned)) {
      const bool deadline = !e.ended && !e.out_of_memory;
      throw input_error(fmt::format("--impl {}: {}{}{}", path_, r->message, deadline ? " " : "", deadline ? where(region.control().stage) : ""));
    }
    const control_block& c = region.control();
    if (c.abi_version != PE_IMPL_ABI_VERSION) {
      throw input_error(fmt::format("--impl {}: ABI version {}, this gate speaks {}", path_, c.abi_version, PE_IMPL_ABI_VERSION));
    }
    return checked_name(c, path_);
  }

  [[noreturn]] void query_child(control_block& c) const {
    enter_child(c);
    c.stage = loading;
    void* handle = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail(c, fmt::format("cannot load: {}", dlerror()));
    c.stage = loaded;
    const auto symbol = [&](const char* name) {
      void* s = dlsym(handle, name);
      if (!s) fail(c, fmt::format("does not export {} (see pecheck/impl.h)", name));
      return s;
    };
    const auto version = reinterpret_cast<abi_version_fn>(symbol("pe_impl_abi_version"));
    const auto name = reinterpret_cast<name_fn>(symbol("pe_impl_name"));
    symbol("pe_impl_run");
    c.stage = in_version;
    c.abi_version = version();
    c.stage = in_name;
    const char* n = name();
    // At most the limit and one more byte are read: a name without its NUL is not read past that.
    c.name_length = n ? strnlen(n, plugin_name_limit + 1) : ~std::uint64_t{0};
    if (n) std::memcpy(c.name, n, std::min<std::size_t>(c.name_length, plugin_name_limit));
    c.stage = returned;
    _exit(0);
  }

  [[noreturn]] void call_child(call_region& region, const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                               const std::vector<io_tensor>& outputs) const {
    control_block& c = region.control();
    enter_child(c);
    c.stage = loading;
    void* handle = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) fail(c, fmt::format("cannot load the plugin again: {}", dlerror()));
    const auto run = reinterpret_cast<run_fn>(dlsym(handle, "pe_impl_run"));
    if (!run) fail(c, "pe_impl_run is gone since the plugin was loaded");
    std::vector<pe_tensor> in, out;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const auto& t = inputs[k];
      in.push_back({t.name.c_str(), static_cast<int32_t>(t.type), static_cast<int32_t>(t.shape.size()), t.shape.data(), region.input(k)});
    }
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const auto& t = outputs[k];
      out.push_back({t.name.c_str(), static_cast<int32_t>(t.type), static_cast<int32_t>(t.shape.size()), t.shape.data(), region.output(k)});
    }
    c.stage = running;
    region.protect_for_call();
    const int32_t status = run(op.c_str(), spec.c_str(), in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()),
                               region.message(), message_bytes);
    region.release_control();
    c.status = status;
    c.stage = returned;
    _exit(0);
  }

  [[noreturn]] static void fail(control_block& c, const std::string& why) {
    copy_text(c.error, why.c_str());
    c.stage = failed;
    _exit(0);
  }

  std::string path_, name_;
  int timeout_ms_;
};

// After `limit` consecutive deadlines the implementation is declared hung: later calls fail at
// once, so a hanging implementation costs a few deadlines, not one per remaining case.
class hang_limited final : public implementation {
 public:
  hang_limited(std::unique_ptr<implementation> inner, int timeout_ms) : inner_(std::move(inner)), timeout_ms_(timeout_ms) {}
  std::string name() const override { return inner_->name(); }
  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    if (deadlines_ >= hung_after_deadlines) {
      return {call_status::timed_out, fmt::format("declared hung after {} consecutive deadlines of {} ms", hung_after_deadlines, timeout_ms_), {}};
    }
    call_result r = inner_->run(op, spec, inputs, outputs);
    deadlines_ = r.status == call_status::timed_out ? deadlines_ + 1 : 0;
    return r;
  }

 private:
  std::unique_ptr<implementation> inner_;
  int timeout_ms_;
  int deadlines_ = 0;
};

}  // namespace

std::unique_ptr<implementation> declared_hung_after_deadlines(std::unique_ptr<implementation> inner, int timeout_ms) {
  return std::make_unique<hang_limited>(std::move(inner), timeout_ms);
}

std::unique_ptr<implementation> load_plugin(const std::string& path, int timeout_ms) {
  return declared_hung_after_deadlines(std::make_unique<plugin>(path, timeout_ms), timeout_ms);
}

}  // namespace pe::gate
