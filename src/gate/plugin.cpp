// The C ABI plugin behind pecheck/impl.h. The gate never loads it: a worker process loads it once
// and serves calls (plugin_worker.cpp), each under a time and memory limit, its inputs read-only and
// its outputs between PROT_NONE guard pages; after a fault, or when the worker keeps memory or
// processes past its limits, a fresh worker takes over.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gate/implementation.hpp"
#include "gate/pecheck/impl.h"
#include "gate/plugin_worker.hpp"
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

using worker::control_block;
using worker::page_size;
using worker::where;
using worker::whole_pages;

// The memory budget (load_plugin's memory_limit_bytes) is resident memory a call may add to what
// its worker holds when the call starts, watched by the gate every 5 ms while it runs, and its peak
// after it. A worker that comes to hold this much more than it started with, over many calls, is
// replaced before the next call.
constexpr int worker_memory_watch_ms = 5;

// Pages grown past `baseline` by more than `limit` bytes; never while the baseline is unknown (0:
// the worker has not measured itself yet, and right after the fork it still counts the gate's pages).
bool grew_past(std::uint64_t pages, std::uint64_t baseline, std::size_t limit) {
  return baseline > 0 && pages > baseline && (pages - baseline) * page_size() > limit;
}

// A /proc file of a worker, kept open for its life and read again from its start (pread).
class proc_file {
 public:
  explicit proc_file(const std::string& path) : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~proc_file() {
    if (fd_ >= 0) close(fd_);
  }
  proc_file(const proc_file&) = delete;
  proc_file& operator=(const proc_file&) = delete;
  std::string text() const {
    char buffer[4096];
    const ssize_t n = fd_ >= 0 ? pread(fd_, buffer, sizeof buffer - 1, 0) : -1;
    return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
  }

 private:
  int fd_;
};

// The two numbers of statm the gate reads: address space and resident set, in pages.
struct memory_pages {
  unsigned long size = 0, resident = 0;
};
memory_pages pages_of(const proc_file& statm) {
  memory_pages m;
  std::sscanf(statm.text().c_str(), "%lu %lu", &m.size, &m.resident);
  return m;
}
// The peak resident set (VmHWM) in pages, 0 if unreadable.
unsigned long peak_pages_of(const proc_file& status) {
  const std::string text = status.text();
  const auto at = text.find("VmHWM:");
  unsigned long kib = 0;
  if (at != std::string::npos) std::sscanf(text.c_str() + at + 6, "%lu", &kib);
  return kib * 1024 / page_size();
}

// A worker's shared memory: the control block (mapped before the fork, so at the same address in
// the worker) and the call file (a memfd both map; the gate's view grows with the calls).
class shared_memory {
 public:
  shared_memory() {
    control_bytes_ = whole_pages(sizeof(control_block));
    void* c = mmap(nullptr, control_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (c == MAP_FAILED) throw std::runtime_error("gate: cannot map a worker's control block");
    control_ = static_cast<control_block*>(c);
    control_->status = worker::status_sentinel;
    file_ = memfd_create("pecheck-call", MFD_CLOEXEC);
    if (file_ < 0) throw std::runtime_error("gate: cannot create a worker's call memory (memfd_create)");
  }
  ~shared_memory() {
    if (view_) munmap(view_, view_bytes_);
    close(file_);
    munmap(control_, control_bytes_);
  }
  shared_memory(const shared_memory&) = delete;
  shared_memory& operator=(const shared_memory&) = delete;

  control_block& control() const { return *control_; }
  bool in_control(std::uintptr_t a) const {
    const auto c = reinterpret_cast<std::uintptr_t>(control_);
    return a >= c && a < c + control_bytes_;
  }
  int file() const { return file_; }

  // The call file, at least `bytes` long, as the gate sees it.
  unsigned char* view(std::size_t bytes) {
    if (bytes > view_bytes_) {
      if (view_) munmap(view_, view_bytes_);
      view_ = nullptr;
      const std::size_t grown = std::max(bytes, 2 * view_bytes_);
      void* v = ftruncate(file_, static_cast<off_t>(grown)) == 0 ? mmap(nullptr, grown, PROT_READ | PROT_WRITE, MAP_SHARED, file_, 0) : MAP_FAILED;
      if (v == MAP_FAILED) throw std::runtime_error(fmt::format("gate: cannot map {} bytes of call memory", grown));
      view_ = static_cast<unsigned char*>(v);
      view_bytes_ = grown;
    }
    return view_;
  }

 private:
  control_block* control_ = nullptr;
  std::size_t control_bytes_ = 0;
  int file_ = -1;
  unsigned char* view_ = nullptr;
  std::size_t view_bytes_ = 0;
};

// A fault at `address` of the worker's as the call's failure, or nothing if the address is not the call's.
std::optional<call_result> fault_at(const shared_memory& memory, const worker::call_layout& layout, std::uintptr_t address, int access,
                                    int signal) {
  const std::string verb = access == 1 ? "wrote" : access == 0 ? "read" : "touched";
  const auto outside = [&](std::string text) {
    // Reading outside a tensor is a crash of the implementation; writing outside its outputs is a stray write.
    if (access == 1) return call_result{call_status::out_of_bounds, std::move(text), {}};
    return call_result{call_status::crashed, fmt::format("killed by signal {} ({}): {}", signal, strsignal(signal), text), {}};
  };
  if (memory.in_control(address)) return outside(verb + " into the gate's control block");
  const std::uintptr_t reserved = memory.control().region_base;
  if (address < reserved || address >= reserved + layout.bytes + 2 * worker::far_guard_bytes) return std::nullopt;
  // Offsets from the call memory's start (negative in the far guard before it).
  const auto a = static_cast<std::int64_t>(address - reserved) - static_cast<std::int64_t>(worker::far_guard_bytes);
  const worker::span* nearest = nullptr;
  std::uint64_t distance = UINT64_MAX;
  for (const auto& s : layout.spans) {
    const auto start = static_cast<std::int64_t>(s.offset), end = start + static_cast<std::int64_t>(s.bytes);
    const std::uint64_t d = a < start ? static_cast<std::uint64_t>(start - a) : a < end ? 0 : static_cast<std::uint64_t>(a - end);
    if (d < distance) distance = d, nearest = &s;
  }
  const auto at = a - static_cast<std::int64_t>(nearest->offset);
  if (distance == 0) return outside(fmt::format("{} into {}", verb, nearest->what));
  if (at < 0) return outside(fmt::format("{} before the {} bytes of {}, {} bytes before it", verb, nearest->bytes, nearest->what, distance));
  return outside(fmt::format("{} past the {} bytes of {}, at byte {}", verb, nearest->bytes, nearest->what, at));
}

// The plugin's name as the first worker copied it, or why it is unusable.
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

// One worker process with the plugin loaded. It answers one byte per request on its channel; a
// missing answer (an end, the deadline, the memory budget) ends it, and the gate says why.
class plugin_worker {
 public:
  plugin_worker(const std::string& path, int timeout_ms, int start_timeout_ms, std::size_t budget, std::size_t address_space)
      : timeout_ms_(timeout_ms), budget_(budget), address_space_(address_space) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) throw std::runtime_error("gate: cannot create a worker's channel");
    channel_ = ends[0];
    control_block& c = memory_.control();
    try {
      child_ = std::make_unique<process::child>([&] {
        close(ends[0]);
        worker::serve(path, c, ends[1], memory_.file(), address_space);
      });
    } catch (...) {
      close(ends[0]), close(ends[1]);
      throw;
    }
    close(ends[1]);
    statm_ = std::make_unique<proc_file>(fmt::format("/proc/{}/statm", child_->worker_pid()));
    status_ = std::make_unique<proc_file>(fmt::format("/proc/{}/status", child_->worker_pid()));
    startup_ = await_answer(nullptr, start_timeout_ms);
    if (!startup_) started_ = pages_of(*statm_);
  }
  ~plugin_worker() {
    child_->finish();
    close(channel_);
  }
  plugin_worker(const plugin_worker&) = delete;
  plugin_worker& operator=(const plugin_worker&) = delete;

  // Why the worker could not load the plugin (it has ended then), or nothing.
  const std::optional<call_result>& startup_failure() const { return startup_; }
  const control_block& control() const { return memory_.control(); }
  bool alive() const { return alive_; }
  int calls() const { return calls_; }
  // The last call ended past the memory budget (measured from its own start, so its own doing).
  bool ran_out_of_memory() const { return out_of_memory_; }
  // An earlier call of this worker's left processes, which it killed in place.
  bool ended_processes() const { return ended_processes_; }

  // The worker cannot reset its peak resident set: each of its calls needs a worker of its own.
  bool single_use() const { return memory_.control().single_use; }
  // Why the worker should not serve another call, if it should not: a call left a process behind,
  // or it holds memory or address space past its limits.
  std::optional<std::string> retirement() const {
    if (memory_.control().left_processes && !memory_.control().ended_in_place) return "a call left a process behind";
    const memory_pages now = pages_of(*statm_);
    if (past_budget(now.resident, started_.resident)) {
      return fmt::format("it held more than {} MiB of resident memory past its start", budget_ >> 20);
    }
    if (address_space_ != no_address_space_limit && grew_past(now.size, started_.size, address_space_)) {
      return fmt::format("its address space grew past {} GiB more than its start", address_space_ >> 30);
    }
    return std::nullopt;
  }

  call_result call(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs, const std::vector<io_tensor>& outputs) {
    nlohmann::json request{{"op", op}, {"spec", spec}, {"spans", nlohmann::json::array()}, {"inputs", nlohmann::json::array()},
                           {"outputs", nlohmann::json::array()}};
    for (const auto* list : {&inputs, &outputs})
      for (const auto& t : *list)
        request[list == &inputs ? "inputs" : "outputs"].push_back({{"name", t.name}, {"dtype", static_cast<int>(t.type)}, {"shape", t.shape}});
    // The spans' offsets depend on the request's size, which holds them: lay out with a guess, then
    // again until the request fits its span (a page holds small requests; a second pass at most).
    std::vector<std::uint8_t> packed;
    worker::call_layout layout = worker::call_layout::of(page_size(), inputs, outputs);
    for (;;) {
      request["spans"] = nlohmann::json::array();
      for (const auto& s : layout.spans) request["spans"].push_back({s.offset, s.bytes, s.room, s.read_only});
      packed = nlohmann::json::to_msgpack(request);
      if (2 * sizeof(std::uint64_t) + packed.size() <= layout.spans[0].room) break;
      layout = worker::call_layout::of(2 * sizeof(std::uint64_t) + packed.size(), inputs, outputs);
    }
    unsigned char* view = memory_.view(layout.bytes);
    const std::uint64_t head[2] = {layout.bytes, packed.size()};
    std::memcpy(view, head, sizeof head);
    std::memcpy(view + sizeof head, packed.data(), packed.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) std::memcpy(view + layout.input(k).offset, inputs[k].bytes.data(), inputs[k].bytes.size());
    // Outputs and the message start zeroed, with guard bytes up to their guard page (checked after the call).
    for (std::size_t k = 1; k < layout.spans.size(); ++k) {
      const auto& s = layout.spans[k];
      if (s.read_only) continue;
      std::memset(view + s.offset, 0, s.bytes);
      std::memset(view + s.offset + s.bytes, worker::guard_value, s.room - s.bytes);
    }
    control_block& c = memory_.control();
    c.status = worker::status_sentinel;
    c.fault_signal = c.fault_access = c.left_processes = c.ended_in_place = 0;
    c.fault_address = c.region_base = c.children_peak_pages = 0;
    c.error[0] = '\0';
    c.call_number = ++calls_;
    // A byte already waiting would be read as this call's answer: the plugin wrote it (an earlier call's).
    if (char stray = 0; recv(channel_, &stray, 1, MSG_DONTWAIT) == 1) return end_with(stray_answer());
    // A worker that died between calls does not read this; the wait below sees it end.
    (void)!send(channel_, "c", 1, MSG_NOSIGNAL);
    if (auto r = await_answer(&layout, timeout_ms_)) return *r;
    if (c.ended_in_place) ended_processes_ = true;
    if (past_budget(peak_pages_of(*status_), c.baseline_resident_pages) || past_budget(c.children_peak_pages, c.baseline_resident_pages)) {
      out_of_memory_ = true;
      return end_with({call_status::crashed, out_of_memory_message(budget_), {}});
    }
    for (std::size_t k = 1; k < layout.spans.size(); ++k) {
      const auto& s = layout.spans[k];
      if (s.read_only) continue;
      for (std::size_t b = s.bytes; b < s.room; ++b)
        if (view[s.offset + b] != worker::guard_value) {
          return end_with({call_status::out_of_bounds, fmt::format("wrote past the {} bytes of {}, at byte {}", s.bytes, s.what, b), {}});
        }
    }
    call_result r;
    const char* message = reinterpret_cast<const char*>(view + layout.message().offset);
    r.message.assign(message, strnlen(message, worker::message_bytes));
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
    // Each output's bytes read once from the call memory (not the template's zeros copied, then overwritten).
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const unsigned char* from = view + layout.output(k).offset;
      r.outputs.push_back({outputs[k].name, outputs[k].type, outputs[k].shape, std::vector<unsigned char>(from, from + outputs[k].bytes.size()), outputs[k].layout});
    }
    return r;
  }

 private:
  // Waits for the worker's answer byte under the deadline (`limit_ms` from now) and the memory
  // watch. Nothing if it answered; else the worker is ended and the result says why, `layout`
  // being the call's memory (null at startup).
  std::optional<call_result> await_answer(const worker::call_layout* layout, int limit_ms) {
    const auto deadline = process::clock_type::now() + std::chrono::milliseconds(limit_ms);
    const control_block& c = memory_.control();
    bool channel_open = true, out_of_memory = false, ended = false;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - process::clock_type::now()).count();
      pollfd fds[2] = {{channel_, POLLIN, 0}, {child_->pidfd(), POLLIN, 0}};
      pollfd* first = channel_open ? &fds[0] : &fds[1];
      const int count = (channel_open ? 1 : 0) + (child_->pidfd() >= 0 ? 1 : 0);
      // No pidfd (kernel before 5.3): the leader's state is checked every slice instead.
      const int slice = static_cast<int>(std::max<long long>(0, std::min<long long>(left, child_->pidfd() >= 0 ? worker_memory_watch_ms : 1)));
      if (count > 0) poll(first, static_cast<nfds_t>(count), slice);
      else usleep(1000);
      if (channel_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        char byte = 0;
        const ssize_t n = recv(channel_, &byte, 1, MSG_DONTWAIT);
        if (n == 1 && layout && c.answered != c.call_number) return end_with(stray_answer());  // the call has not returned
        if (n == 1) return std::nullopt;
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) channel_open = false;  // closed: it is ending
      }
      if (child_->ended()) {
        ended = true;
        break;
      }
      const memory_pages m = pages_of(*statm_);
      if (past_budget(m.resident, c.baseline_resident_pages)) {
        out_of_memory = true;
        break;
      }
      if (left <= 0) break;
    }
    // The worker's peak before it is killed: in the sandbox the gate reaps its keeper, not the worker.
    const std::uint64_t worker_peak = peak_pages_of(*status_);
    rusage used{};
    const int status = child_->finish(&used);
    alive_ = false;
    // The peak of the worker's whole life is the call's own only in a worker's first call (or one
    // that cannot reset its peak): later, an earlier call's peak must not make this one's end OOM.
    if (calls_ <= 1 || c.single_use) {
      const auto peak = std::max<std::uint64_t>(worker_peak, static_cast<std::uint64_t>(used.ru_maxrss) * 1024 / page_size());
      out_of_memory = out_of_memory || past_budget(peak, c.baseline_resident_pages);
    }
    if (out_of_memory) {
      out_of_memory_ = true;
      return call_result{call_status::crashed, out_of_memory_message(budget_), {}};
    }
    if (!ended) return call_result{call_status::timed_out, fmt::format("no answer within {} ms", limit_ms), {}};
    if (WIFSIGNALED(status)) {
      const int sig = WTERMSIG(status);
      // Only while pe_impl_run ran is the call's memory mapped where region_base says.
      if (layout && c.fault_signal == sig && c.stage == worker::running)
        if (auto fault = fault_at(memory_, *layout, c.fault_address, c.fault_access, sig)) return fault;
      return call_result{call_status::crashed, fmt::format("killed by signal {} ({}) {}", sig, strsignal(sig), where(c.stage)), {}};
    }
    if (c.stage == worker::failed) return call_result{call_status::crashed, c.error, {}};
    return call_result{call_status::crashed, fmt::format("exited with status {} {}", WEXITSTATUS(status), where(c.stage)), {}};
  }

  // The plugin wrote on the channel the worker answers on (it is a descriptor of its process): taken
  // for an answer, the byte would put every later call out of step with its result.
  static call_result stray_answer() {
    return {call_status::out_of_bounds, "wrote onto the worker's channel to the gate: a byte that is no answer of the worker's (a second answer?)", {}};
  }

  bool past_budget(std::uint64_t pages, std::uint64_t baseline) const { return grew_past(pages, baseline, budget_); }

  call_result end_with(call_result r) {
    child_->finish();
    alive_ = false;
    return r;
  }

  int timeout_ms_;
  std::size_t budget_;
  std::size_t address_space_;  // RLIMIT_AS headroom per call, or no_address_space_limit
  shared_memory memory_;
  int channel_ = -1;
  std::unique_ptr<process::child> child_;
  std::unique_ptr<proc_file> statm_, status_;
  std::optional<call_result> startup_;
  memory_pages started_;
  bool alive_ = true, out_of_memory_ = false, ended_processes_ = false;
  int calls_ = 0;
};

class plugin final : public implementation {
 public:
  plugin(std::string path, int timeout_ms, int start_timeout_ms, plugin_isolation isolation, std::size_t memory_limit_bytes,
         std::size_t address_space_bytes)
      : path_(std::move(path)),
        timeout_ms_(timeout_ms),
        start_timeout_ms_(start_timeout_ms),
        isolation_(isolation),
        memory_limit_bytes_(memory_limit_bytes),
        address_space_bytes_(address_space_bytes) {
    worker_ = std::make_unique<plugin_worker>(path_, timeout_ms_, start_timeout_ms_, memory_limit_bytes_, address_space_bytes_);
    if (const auto& failure = worker_->startup_failure()) {
      const bool deadline = failure->status == call_status::timed_out;
      throw input_error(fmt::format("--impl {}: {}{}{}", path_, failure->message, deadline ? " " : "", deadline ? where(worker_->control().stage) : ""));
    }
    const control_block& c = worker_->control();
    if (c.abi_version != PE_IMPL_ABI_VERSION) {
      throw input_error(fmt::format("--impl {}: ABI version {}, this gate speaks {}", path_, c.abi_version, PE_IMPL_ABI_VERSION));
    }
    name_ = checked_name(c, path_);
  }

  std::string name() const override { return name_; }

  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    if (!worker_ && !(worker_ = fresh_worker())) return restart_failure_;
    const int served_before = worker_->calls();
    const bool ended_before = worker_->ended_processes();
    call_result r = worker_->call(op, spec, inputs, outputs);
    const bool own_memory = worker_->ran_out_of_memory();
    if (worker_->control().ended_in_place) ++processes_ended_;
    retire_if_due();
    // A crash or a stray write in a worker that served other calls first may be theirs (a corrupt
    // heap, a stale pointer): the same call again in a fresh worker tells which. Running out of
    // memory is not: the budget counts from the call's start. Nor is a hang, which would cost
    // another deadline to tell.
    if (served_before > 0 && !own_memory && (r.status == call_status::crashed || r.status == call_status::out_of_bounds)) {
      worker_.reset();
      if (!(worker_ = fresh_worker())) return r;
      call_result again = worker_->call(op, spec, inputs, outputs);
      retire_if_due();
      if (is_fatal(again.status)) return again;
      r.message += fmt::format(
          " (after {} earlier calls in the same worker process; in a fresh one the same call answered {}: the implementation leaves "
          "state behind that breaks a later call{}; --isolation call runs each call in a process of its own)",
          served_before, status_name(again.status),
          ended_before ? ", or relies on a process an earlier call started, which the worker killed when that call returned" : "");
    }
    return r;
  }

  std::vector<std::string> notes() const override {
    std::vector<std::string> out;
    if (processes_ended_ > 0) {
      out.push_back(fmt::format("{} call(s) left a process behind: the worker killed every process the plugin had started in its sandbox when the call returned",
                                processes_ended_));
    }
    for (const auto& [why, count] : retired_) out.push_back(fmt::format("the plugin's worker process was replaced {} time(s): {}", count, why));
    return out;
  }

 private:
  // A worker started afresh after a fault or a retirement; null if it could not load the plugin
  // (restart_failure_ says why).
  std::unique_ptr<plugin_worker> fresh_worker() {
    auto w = std::make_unique<plugin_worker>(path_, timeout_ms_, start_timeout_ms_, memory_limit_bytes_, address_space_bytes_);
    if (const auto& failure = w->startup_failure()) {
      restart_failure_ = *failure;
      restart_failure_.message = "restarting the plugin's worker: " + failure->message;
      return nullptr;
    }
    return w;
  }

  void retire_if_due() {
    if (!worker_) return;
    if (!worker_->alive()) {
      worker_.reset();
      return;
    }
    // A worker of one call is no news; a retirement for what the calls left behind is a note.
    const auto why = worker_->retirement();
    if (why) ++retired_[*why];
    if (why || worker_->single_use() || isolation_ == plugin_isolation::call) worker_.reset();
  }

  std::string path_, name_;
  int timeout_ms_, start_timeout_ms_;
  plugin_isolation isolation_;
  std::size_t memory_limit_bytes_, address_space_bytes_;
  std::unique_ptr<plugin_worker> worker_;
  call_result restart_failure_;
  std::map<std::string, int> retired_;
  int processes_ended_ = 0;  // calls whose leftover processes the worker killed in place
};

// After `limit` consecutive deadlines the implementation is declared hung: later calls fail at
// once, so a hanging implementation costs a few deadlines, not one per remaining case.
class hang_limited final : public implementation {
 public:
  hang_limited(std::unique_ptr<implementation> inner, int timeout_ms) : inner_(std::move(inner)), timeout_ms_(timeout_ms) {}
  std::string name() const override { return inner_->name(); }
  std::vector<std::string> layouts() const override { return inner_->layouts(); }
  std::vector<std::string> notes() const override { return inner_->notes(); }
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

std::unique_ptr<implementation> load_plugin(const std::string& path, int timeout_ms, int start_timeout_ms, plugin_isolation isolation,
                                            std::size_t memory_limit_bytes, std::size_t address_space_bytes) {
  return declared_hung_after_deadlines(
      std::make_unique<plugin>(path, timeout_ms, start_timeout_ms, isolation, memory_limit_bytes, address_space_bytes), timeout_ms);
}

plugin_isolation parse_isolation(const std::string& name) {
  if (name == "worker") return plugin_isolation::worker;
  if (name == "call") return plugin_isolation::call;
  throw input_error(fmt::format("--isolation '{}' is not worker or call", name));
}

}  // namespace pe::gate
