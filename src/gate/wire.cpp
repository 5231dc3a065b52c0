// The wire protocol (`pecheck gate --impl-cmd CMD`): the implementation is a process that reads
// request frames on stdin and answers on stdout. A frame is one line of JSON, then exactly
// payload_bytes raw bytes. A hang, a crash or a malformed answer fails the case that did it and
// the process is started again for the next one.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gate/implementation.hpp"
#include "gate/layouts.hpp"
#include "gate/process.hpp"
#include "gate/tree_memory.hpp"
#include "gate/wire_answer.hpp"
#include "pe/error.hpp"

namespace pe::gate {
namespace {

using json = nlohmann::json;
using clock_type = process::clock_type;

// The longest head line the gate reads. Heads are small (an answer's names, dtypes and shapes: some
// hundred bytes); the limit stops a process that writes without a newline (a binary dump, a log
// line gone wrong) at once, not at the deadline, and bounds what the gate buffers.
constexpr std::size_t line_limit = std::size_t{4} << 20;

// How often a call's memory is sampled: often enough that a runaway allocation (GB/s) is stopped
// within a few hundred MB of the limit, rarely enough to cost nothing measurable (tree_memory_watch).
constexpr int wire_memory_watch_ms = 10;

class wire_process final : public implementation {
 public:
  wire_process(std::string command, int timeout_ms, int start_timeout_ms, std::size_t memory_limit_bytes)
      : command_(std::move(command)), timeout_ms_(timeout_ms), start_timeout_ms_(start_timeout_ms), memory_limit_(memory_limit_bytes) {
    start();
    const auto hello = say_hello();
    if (const auto problem = hello_problem(hello)) throw input_error(fmt::format("--impl-cmd '{}': {}", command_, *problem));
    const json& h = hello.head;
    name_ = h.contains("name") && h["name"].is_string() ? h["name"].get<std::string>() : command_;
    auto offered = layouts_of_hello(h);
    if (!offered.problem.empty()) throw input_error(fmt::format("--impl-cmd '{}': {}", command_, offered.problem));
    layouts_ = std::move(offered.names);
  }
  ~wire_process() override { stop(); }

  std::string name() const override { return name_; }
  std::vector<std::string> layouts() const override { return layouts_; }

  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    call_result r = exchange_call(op, spec, inputs, outputs);
    // Ended with the process (stop()): a crash or a hang, which are fatal anyway, or an answer that
    // broke the protocol.
    r.process_replaced = !process_ && r.status != call_status::ok && r.status != call_status::unsupported;
    return r;
  }

 private:
  // One call: hello first for a fresh process, the request, the answer decoded. Whatever leaves the
  // stream out of step stops the process (the next call starts another).
  call_result exchange_call(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                            const std::vector<io_tensor>& outputs) {
    call_result r;
    if (!process_) {
      // A fresh process answers hello under the start deadline, so the call's own deadline covers
      // the call alone, not the interpreter starting.
      start();
      const auto hello = say_hello();
      if (const auto problem = hello_problem(hello)) {
        stop();
        return {hello.ok ? call_status::bad_output : hello.status, "restarting the process: " + *problem, {}};
      }
    }
    if (auto r = unasked_output()) return *r;
    json request{{"v", 1}, {"id", ++id_}, {"op", op}, {"spec", spec}, {"inputs", json::array()}, {"outputs", json::array()}};
    std::string payload;
    for (const auto& t : inputs) {
      json described{{"name", t.name}, {"dtype", dtype_name(t.type)}, {"shape", t.shape}, {"offset", payload.size()}, {"nbytes", t.bytes.size()}};
      if (!t.layout.empty()) described["layout"] = t.layout;
      request["inputs"].push_back(std::move(described));
      payload.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
    }
    for (const auto& t : outputs) request["outputs"].push_back({{"name", t.name}, {"dtype", dtype_name(t.type)}, {"shape", t.shape}});
    request["payload_bytes"] = payload.size();
    std::size_t output_bytes = 0;
    for (const auto& t : outputs) output_bytes += t.bytes.size();
    const std::size_t io_bytes = payload.size() + output_bytes;
    // The implementation's own tree: in the sandbox the keeper and init above it are copies of the gate.
    tree_memory_watch memory(process_->worker_pid(), memory_limit_ + 2 * io_bytes);
    auto answer = exchange(request, payload, timeout_ms_, output_bytes, &memory);
    // A spike between two samples shows in the peak: a call that answered may still have run out.
    if (answer.out_of_memory || (answer.ok && memory.peak_past())) answer = out_of_memory(io_bytes);
    if (!answer.ok) {
      r.status = answer.status;
      r.message = answer.message;
      stop();  // a fresh process for the next case
      return r;
    }
    bool out_of_step = false;
    if (auto problem = wire::answer_head_problem(answer.head, id_, out_of_step)) {
      // An answer to another request: the process's next answer would be taken for the wrong call.
      if (out_of_step) stop();
      return *problem;
    }
    if (!buffer_.empty()) return bad(r, more_than_one_answer());
    return wire::answer_result(answer.head, answer.payload, outputs);
  }

  struct answer_frame {
    bool ok = false;
    call_status status = call_status::crashed;  // when not ok
    std::string message;
    json head;
    std::string payload;
    bool out_of_memory = false;  // ended by the memory watch (not ok)
  };

  answer_frame out_of_memory(std::size_t io_bytes) const {
    answer_frame a;
    a.message = out_of_memory_message(memory_limit_, io_bytes);
    return a;
  }

  // What is wrong with an answer to hello (none, not ok, another version), or nothing.
  static std::optional<std::string> hello_problem(const answer_frame& hello) {
    if (!hello.ok) return (hello.status == call_status::bad_output ? "bad answer to hello: " : "no answer to hello: ") + hello.message;
    const json& h = hello.head;
    const auto field = [&](const char* key) { return h.is_object() && h.contains(key) ? h[key] : json(); };
    if (field("status") != "ok" || field("v") != 1) return "hello answered " + wire::excerpt(h.dump());
    return std::nullopt;
  }

  answer_frame say_hello() {
    answer_frame a = exchange(json{{"v", 1}, {"op", "hello"}, {"payload_bytes", 0}}, {}, start_timeout_ms_, 0);
    if (a.ok && !buffer_.empty()) {
      a.ok = false;
      a.status = call_status::bad_output;
      a.message = more_than_one_answer();
    }
    return a;
  }

  // The process answered, and wrote more (already read): a second answer, or output out of step. It is restarted.
  std::string more_than_one_answer() {
    const std::string message = fmt::format("the process wrote {} bytes more after its answer, unasked (a second answer?): {}", buffer_.size(), wire::excerpt(buffer_));
    stop();
    return message;
  }

  // Bytes the process wrote after its last answer and before the next request, failing the call
  // about to be made (the process is restarted): they would be read as that call's answer.
  std::optional<call_result> unasked_output() {
    if (!process_) return std::nullopt;
    char chunk[65536];
    ssize_t n;
    while ((n = read(out_, chunk, sizeof chunk)) > 0 && buffer_.size() <= line_limit) buffer_.append(chunk, static_cast<std::size_t>(n));
    if (buffer_.empty()) return std::nullopt;  // nothing, or an end of file, which the exchange reports
    call_result r;
    bad(r, fmt::format("the process wrote {}{} bytes after its answer to request {}, unasked (a second answer?): {}", buffer_.size(),
                       buffer_.size() > line_limit ? "+" : "", id_, wire::excerpt(buffer_)));
    stop();
    return r;
  }

  static call_result& bad(call_result& r, std::string why) {
    r.status = call_status::bad_output;
    r.message = std::move(why);
    r.outputs.clear();
    return r;
  }

  void start() {
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) throw std::runtime_error("gate: pipe failed");
    process_.emplace([&] {  // the implementation, in a group of its own; its stderr is the gate's log
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      execl("/bin/sh", "sh", "-c", command_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    });
    close(to_child[0]), close(from_child[1]);
    in_ = to_child[1], out_ = from_child[0];
    // Neither end may block the gate: a process that stops reading must not stall a write.
    fcntl(in_, F_SETFL, fcntl(in_, F_GETFL) | O_NONBLOCK);
    fcntl(out_, F_SETFL, fcntl(out_, F_GETFL) | O_NONBLOCK);
    buffer_.clear();
  }

  // Closes the pipes and kills the process's whole group (a shell's children included).
  void stop() {
    if (in_ >= 0) close(in_);
    if (out_ >= 0) close(out_);
    in_ = out_ = -1;
    process_.reset();
  }

  // The process closed its stdout: it is dying, or it will never answer. Its exit status (within
  // the deadline) says which.
  void closed_stdout(clock_type::time_point deadline, int limit_ms, answer_frame& a) {
    if (!process_->wait_until(deadline)) {
      a.status = call_status::timed_out;
      a.message = fmt::format("the process closed its stdout and was still running after {} ms", limit_ms);
    } else {
      const int status = process_->finish();
      a.message = WIFSIGNALED(status) ? fmt::format("the process was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)))
                                      : fmt::format("the process exited with status {} mid-answer", WEXITSTATUS(status));
    }
    stop();
  }

  // The answer's head, once its line is in: sets `want` to the frame's whole length. False (a
  // filled) when the line is too long or not JSON, or announces a payload that is not a count or
  // larger than `payload_limit`, the outputs asked for: refused before any of it is read.
  bool read_head(std::size_t newline, std::size_t payload_limit, std::size_t& want, answer_frame& a) {
    a.status = call_status::bad_output;
    auto head = wire::read_answer_head(buffer_.substr(0, newline), payload_limit);
    if (!head.problem.empty()) {
      a.message = std::move(head.problem);
      return false;
    }
    a.head = std::move(head.head);
    want = newline + 1 + head.payload_bytes;
    return true;
  }

  // Writes the request and reads the answer at the same time, all under one deadline, `limit_ms`
  // from now: a process may answer (or die) before it has read its whole request, and a full pipe
  // must not stall the gate. The answer may carry at most `payload_limit` payload bytes.
  // With a `memory` watch, a process tree grown past its allowance ends the exchange: not ok,
  // out_of_memory (the caller names the limit).
  answer_frame exchange(const json& head, const std::string& payload, int limit_ms, std::size_t payload_limit,
                        tree_memory_watch* memory = nullptr) {
    answer_frame a;
    const auto deadline = clock_type::now() + std::chrono::milliseconds(limit_ms);
    const std::string request = head.dump() + "\n" + payload;
    std::size_t written = 0, want = 0;  // want: the answer frame's length, once its head is read
    std::size_t searched = 0;           // bytes of the buffer known to hold no newline
    bool head_read = false;
    for (;;) {
      if (!head_read) {
        const auto newline = buffer_.find('\n', searched);
        searched = buffer_.size();
        if (std::min(newline, buffer_.size()) > line_limit) {  // a newline past the limit, or none yet
          a.status = call_status::bad_output;
          a.message = fmt::format("the answer's head line passed the wire's limit of {} bytes ({} MiB): {}", line_limit, line_limit >> 20, wire::excerpt(buffer_));
          return a;
        }
        if (newline != std::string::npos) {
          if (!read_head(newline, payload_limit, want, a)) return a;
          head_read = true;
        }
      }
      if (head_read && buffer_.size() >= want) break;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
      if (left <= 0) {
        a.status = call_status::timed_out;
        a.message = fmt::format("no answer within {} ms", limit_ms);
        return a;
      }
      if (memory && memory->past_now()) {
        a.out_of_memory = true;
        return a;
      }
      pollfd fds[2] = {{out_, POLLIN, 0}, {written < request.size() ? in_ : -1, POLLOUT, 0}};
      if (poll(fds, 2, static_cast<int>(memory ? std::min<long long>(left, wire_memory_watch_ms) : left)) <= 0) continue;
      if (fds[1].revents & (POLLOUT | POLLERR)) {
        const ssize_t n = write(in_, request.data() + written, request.size() - written);
        if (n > 0) written += static_cast<std::size_t>(n);
        else if (errno != EAGAIN) written = request.size();  // stdin closed: the answer, or the exit, says the rest
      }
      if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
        char chunk[65536];
        const ssize_t n = read(out_, chunk, sizeof chunk);
        if (n == 0 || (n < 0 && errno != EAGAIN)) {
          closed_stdout(deadline, limit_ms, a);
          return a;
        }
        if (n > 0) buffer_.append(chunk, static_cast<std::size_t>(n));
      }
    }
    const auto newline = buffer_.find('\n');
    a.payload = buffer_.substr(newline + 1, want - newline - 1);
    buffer_.erase(0, want);  // what follows is unasked: the caller, knowing the answer's id, says so
    a.ok = true;
    // Answered before reading all of its request: the rest would be read as the next frame.
    if (written < request.size()) stop();
    return a;
  }

  std::string command_, name_;
  std::vector<std::string> layouts_;  // what its first hello offered
  int timeout_ms_, start_timeout_ms_;
  std::size_t memory_limit_;
  std::optional<process::child> process_;
  int in_ = -1, out_ = -1;
  std::int64_t id_ = 0;
  std::string buffer_;
};

}  // namespace

std::unique_ptr<implementation> start_wire(const std::string& command, int timeout_ms, int start_timeout_ms, std::size_t memory_limit_bytes) {
  return declared_hung_after_deadlines(std::make_unique<wire_process>(command, timeout_ms, start_timeout_ms, memory_limit_bytes), timeout_ms);
}

}  // namespace pe::gate
