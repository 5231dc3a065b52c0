// The C ABI plugin behind pecheck/impl.h: dlopen once, then every call in a forked child with a
// time limit, outputs in shared memory fenced by guard bytes.
#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "gate/implementation.hpp"
#include "gate/pecheck/impl.h"
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

namespace {

constexpr std::size_t guard_bytes = 64;
constexpr unsigned char guard_value = 0xA5;
constexpr std::size_t message_bytes = 1024;

using abi_version_fn = int32_t (*)();
using name_fn = const char* (*)();
using run_fn = int32_t (*)(const char*, const char*, const pe_tensor*, int32_t, pe_tensor*, int32_t, char*, size_t);

// One shared, anonymous mapping per call: [status | message | guard out_0 guard | guard out_1 guard ...].
class shared_region {
 public:
  explicit shared_region(std::size_t size) : size_(size) {
    base_ = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (base_ == MAP_FAILED) throw std::runtime_error("gate: cannot map shared memory for a call");
  }
  ~shared_region() { munmap(base_, size_); }
  unsigned char* bytes() { return static_cast<unsigned char*>(base_); }

 private:
  void* base_;
  std::size_t size_;
};

class plugin final : public implementation {
 public:
  plugin(const std::string& path, int timeout_ms) : path_(path), timeout_ms_(timeout_ms) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw input_error(fmt::format("--impl {}: cannot load: {}", path, dlerror()));
    const auto symbol = [&](const char* name) {
      void* s = dlsym(handle_, name);
      if (!s) throw input_error(fmt::format("--impl {}: does not export {} (see pecheck/impl.h)", path, name));
      return s;
    };
    const auto version = reinterpret_cast<abi_version_fn>(symbol("pe_impl_abi_version"))();
    if (version != PE_IMPL_ABI_VERSION) {
      throw input_error(fmt::format("--impl {}: ABI version {}, this gate speaks {}", path, version, PE_IMPL_ABI_VERSION));
    }
    const char* n = reinterpret_cast<name_fn>(symbol("pe_impl_name"))();
    name_ = n ? n : path;
    run_ = reinterpret_cast<run_fn>(symbol("pe_impl_run"));
  }
  ~plugin() override {
    if (handle_) dlclose(handle_);
  }

  std::string name() const override { return name_; }

  call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                  const std::vector<io_tensor>& outputs) override {
    // Layout of the shared region.
    std::vector<std::size_t> offsets;
    std::size_t size = sizeof(std::int32_t) + message_bytes;
    for (const auto& o : outputs) {
      size += guard_bytes;
      offsets.push_back(size);
      size += o.bytes.size() + guard_bytes;
    }
    shared_region shared(size);
    unsigned char* base = shared.bytes();
    std::memset(base, 0, sizeof(std::int32_t) + message_bytes);
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      std::memset(base + offsets[k] - guard_bytes, guard_value, guard_bytes);
      std::memset(base + offsets[k], 0, outputs[k].bytes.size());
      std::memset(base + offsets[k] + outputs[k].bytes.size(), guard_value, guard_bytes);
    }
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child < 0) throw std::runtime_error("gate: fork failed");
    if (child == 0) {  // the call itself, in its own process
      std::vector<pe_tensor> in, out;
      for (const auto& t : inputs) {
        in.push_back({t.name.c_str(), static_cast<int32_t>(t.type), static_cast<int32_t>(t.shape.size()), t.shape.data(),
                      const_cast<unsigned char*>(t.bytes.data())});
      }
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        const auto& t = outputs[k];
        out.push_back({t.name.c_str(), static_cast<int32_t>(t.type), static_cast<int32_t>(t.shape.size()), t.shape.data(),
                       base + offsets[k]});
      }
      char* message = reinterpret_cast<char*>(base + sizeof(std::int32_t));
      const int32_t status = run_(op.c_str(), spec.c_str(), in.data(), static_cast<int32_t>(in.size()), out.data(),
                                  static_cast<int32_t>(out.size()), message, message_bytes);
      message[message_bytes - 1] = '\0';
      std::memcpy(base, &status, sizeof status);
      _exit(0);
    }
    call_result r;
    int wstatus = 0;
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
      const pid_t done = waitpid(child, &wstatus, WNOHANG);
      if (done == child) break;
      if (std::chrono::steady_clock::now() - start > std::chrono::milliseconds(timeout_ms_)) {
        kill(child, SIGKILL);
        waitpid(child, &wstatus, 0);
        r.status = call_status::timed_out;
        r.message = fmt::format("no answer within {} ms", timeout_ms_);
        return r;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    if (WIFSIGNALED(wstatus)) {
      r.status = call_status::crashed;
      r.message = fmt::format("killed by signal {} ({})", WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
      return r;
    }
    if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
      r.status = call_status::crashed;
      r.message = fmt::format("exited with status {} inside pe_impl_run", WEXITSTATUS(wstatus));
      return r;
    }
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      const unsigned char* before = base + offsets[k] - guard_bytes;
      const unsigned char* after = base + offsets[k] + outputs[k].bytes.size();
      for (std::size_t g = 0; g < guard_bytes; ++g) {
        if (before[g] != guard_value || after[g] != guard_value) {
          r.status = call_status::out_of_bounds;
          r.message = fmt::format("wrote {} the {} bytes of output {}", before[g] != guard_value ? "before" : "past",
                                  outputs[k].bytes.size(), outputs[k].name);
          return r;
        }
      }
    }
    std::int32_t status = 0;
    std::memcpy(&status, base, sizeof status);
    r.message = reinterpret_cast<const char*>(base + sizeof(std::int32_t));
    if (status == PE_UNSUPPORTED) {
      r.status = call_status::unsupported;
      return r;
    }
    if (status != PE_OK) {
      r.status = call_status::error;
      if (r.message.empty()) r.message = fmt::format("pe_impl_run returned {}", status);
      return r;
    }
    r.outputs = outputs;
    for (std::size_t k = 0; k < outputs.size(); ++k) std::memcpy(r.outputs[k].bytes.data(), base + offsets[k], outputs[k].bytes.size());
    return r;
  }

 private:
  std::string path_, name_;
  int timeout_ms_;
  void* handle_ = nullptr;
  run_fn run_ = nullptr;
};

}  // namespace

std::unique_ptr<implementation> load_plugin(const std::string& path, int timeout_ms) {
  return std::make_unique<plugin>(path, timeout_ms);
}

}  // namespace pe::gate
