// The wire protocol (`pecheck gate --impl-cmd CMD`): the implementation is a process that reads
// request frames on stdin and answers on stdout. A frame is one line of JSON, then exactly
// payload_bytes raw bytes. A hang, a crash or a malformed answer fails the case that did it and
// the process is started again for the next one.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gate/implementation.hpp"
#include "pe/error.hpp"

namespace pe::gate {
namespace {

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

class wire_process final : public implementation {
 public:
  wire_process(std::string command, int timeout_ms) : command_(std::move(command)), timeout_ms_(timeout_ms) {
    start();
    const auto hello = exchange(json{{"v", 1}, {"op", "hello"}, {"payload_bytes", 0}}, {});
    if (!hello.ok) throw input_error(fmt::format("--impl-cmd '{}': no answer to hello: {}", command_, hello.message));
    if (!hello.head.is_object() || hello.head.value("status", "") != "ok" || hello.head.value("v", 0) != 1) {
      throw input_error(fmt::format("--impl-cmd '{}': hello answered {}", command_, hello.head.dump()));
    }
    name_ = hello.head.value("name", command_);
  }
  ~wire_process() override { stop(); }

  std::string name() const override { return name_; }

  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    call_result r;
    if (pid_ <= 0) start();
    json request{{"v", 1}, {"id", ++id_}, {"op", op}, {"spec", spec}, {"inputs", json::array()}, {"outputs", json::array()}};
    std::string payload;
    for (const auto& t : inputs) {
      request["inputs"].push_back({{"name", t.name}, {"dtype", dtype_name(t.type)}, {"shape", t.shape}, {"offset", payload.size()},
                                   {"nbytes", t.bytes.size()}});
      payload.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
    }
    for (const auto& t : outputs) request["outputs"].push_back({{"name", t.name}, {"dtype", dtype_name(t.type)}, {"shape", t.shape}});
    request["payload_bytes"] = payload.size();
    const auto answer = exchange(request, payload);
    if (!answer.ok) {
      r.status = answer.timed_out ? call_status::timed_out : call_status::crashed;
      r.message = answer.message;
      stop();  // a fresh process for the next case
      return r;
    }
    const json& head = answer.head;
    const std::string status = head.is_object() ? head.value("status", "") : "";
    r.message = head.is_object() && head.contains("message") && head["message"].is_string() ? head["message"].get<std::string>() : "";
    if (status == "unsupported") {
      r.status = call_status::unsupported;
      return r;
    }
    if (status != "ok") {
      r.status = status == "error" ? call_status::error : call_status::bad_output;
      if (status != "error") r.message = fmt::format("answer has status '{}': {}", status, head.dump().substr(0, 200));
      return r;
    }
    if (head.value("id", -1) != id_) return bad(r, fmt::format("answer id {} for request {}", head.value("id", -1), id_));
    if (!head.contains("outputs") || !head["outputs"].is_array()) return bad(r, "answer has no outputs array");
    r.outputs = outputs;
    for (auto& t : r.outputs) {
      const json* found = nullptr;
      for (const auto& o : head["outputs"])
        if (o.is_object() && o.value("name", "") == t.name) found = &o;
      if (!found) return bad(r, fmt::format("answer has no output {}", t.name));
      const auto& o = *found;
      if (o.value("dtype", "") != dtype_name(t.type) || !o.contains("shape") || o["shape"] != json(t.shape)) {
        return bad(r, fmt::format("output {} is {} {}, not {} {}", t.name, o.value("dtype", "?"), o.value("shape", json()).dump(),
                                  dtype_name(t.type), json(t.shape).dump()));
      }
      const auto offset = o.value("offset", std::uint64_t{0}), nbytes = o.value("nbytes", std::uint64_t{0});
      if (nbytes != t.bytes.size() || offset > answer.payload.size() || nbytes > answer.payload.size() - offset) {
        return bad(r, fmt::format("output {} claims bytes [{}, {}) of a {}-byte payload; it needs {} bytes", t.name, offset, offset + nbytes,
                                  answer.payload.size(), t.bytes.size()));
      }
      std::memcpy(t.bytes.data(), answer.payload.data() + offset, nbytes);
    }
    return r;
  }

 private:
  struct answer_frame {
    bool ok = false, timed_out = false;
    std::string message;
    json head;
    std::string payload;
  };

  static call_result& bad(call_result& r, std::string why) {
    r.status = call_status::bad_output;
    r.message = std::move(why);
    r.outputs.clear();
    return r;
  }

  void start() {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) throw std::runtime_error("gate: pipe failed");
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("gate: fork failed");
    if (pid_ == 0) {  // the implementation; its stderr is the gate's log
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[0]), close(to_child[1]), close(from_child[0]), close(from_child[1]);
      execl("/bin/sh", "sh", "-c", command_.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(to_child[0]), close(from_child[1]);
    in_ = to_child[1], out_ = from_child[0];
    signal(SIGPIPE, SIG_IGN);  // a dead implementation is an answer, not the gate's death
    buffer_.clear();
  }

  void stop() {
    if (pid_ > 0) {
      close(in_), close(out_);
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
  }

  bool write_all(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(in_, bytes.data() + done, bytes.size() - done);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Reads until a whole line (line = true) or `want` bytes are buffered, before the deadline.
  bool fill(clock_type::time_point deadline, bool line, std::size_t want, answer_frame& a) {
    for (;;) {
      if (line ? buffer_.find('\n') != std::string::npos : buffer_.size() >= want) return true;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
      if (left <= 0) {
        a.timed_out = true;
        a.message = fmt::format("no answer within {} ms", timeout_ms_);
        return false;
      }
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char chunk[65536];
      const ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) {
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = -1;
        a.message = WIFSIGNALED(status) ? fmt::format("the process was killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)))
                                        : fmt::format("the process exited with status {} mid-answer", WEXITSTATUS(status));
        return false;
      }
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }

  answer_frame exchange(const json& head, const std::string& payload) {
    answer_frame a;
    if (!write_all(head.dump() + "\n" + payload)) {
      a.message = "the process closed its stdin";
      return a;
    }
    const auto deadline = clock_type::now() + std::chrono::milliseconds(timeout_ms_);
    if (!fill(deadline, true, 0, a)) return a;
    const auto newline = buffer_.find('\n');
    const std::string line = buffer_.substr(0, newline);
    buffer_.erase(0, newline + 1);
    try {
      a.head = json::parse(line);
    } catch (const json::parse_error&) {
      a.message = fmt::format("the answer line is not JSON: {}", line.substr(0, 200));
      return a;
    }
    const auto bytes = a.head.is_object() ? a.head.value("payload_bytes", std::uint64_t{0}) : 0;
    if (bytes > (std::uint64_t{1} << 32)) {
      a.message = fmt::format("the answer announces {} payload bytes", bytes);
      return a;
    }
    if (!fill(deadline, false, static_cast<std::size_t>(bytes), a)) return a;
    a.payload = buffer_.substr(0, static_cast<std::size_t>(bytes));
    buffer_.erase(0, static_cast<std::size_t>(bytes));
    a.ok = true;
    return a;
  }

  std::string command_, name_;
  int timeout_ms_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::int64_t id_ = 0;
  std::string buffer_;
};

}  // namespace

std::unique_ptr<implementation> start_wire(const std::string& command, int timeout_ms) {
  return std::make_unique<wire_process>(command, timeout_ms);
}

}  // namespace pe::gate
