// An implementation under test as the gate sees it: ops by name over dtype tensors, every call isolated.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gate/io.hpp"

namespace pe::gate {

// What one call came back with. Everything but ok and unsupported is a failure of the case.
enum class call_status { ok, unsupported, error, crashed, timed_out, out_of_bounds, bad_output };
std::string_view status_name(call_status s);
// A crash, a hang or a stray write: calling again would repeat it (at the cost of a deadline, for a hang).
bool is_fatal(call_status s);

struct call_result {
  call_status status = call_status::ok;
  std::string message;
  std::vector<io_tensor> outputs;  // the filled outputs (status ok)
  // A failure after which the implementation's process was replaced: a wire answer that broke the
  // protocol (not a frame, a second answer, another request's answer). Like a crash, calling again
  // would repeat it, each time at the cost of starting the process (seconds for an adapter that
  // imports PyTorch), so it ends its check (call_policy).
  bool process_replaced = false;
};

class implementation {
 public:
  virtual ~implementation() = default;
  virtual std::string name() const = 0;
  // Runs op on spec text; `outputs` says the names, dtypes and shapes the gate expects.
  virtual call_result run(const std::string& op, const std::string& spec, const std::vector<io_tensor>& inputs,
                          const std::vector<io_tensor>& outputs) = 0;
  // What the run should tell its user about the implementation beyond the checks (a worker replaced
  // because it kept memory between calls, say), one line each.
  virtual std::vector<std::string> notes() const { return {}; }
  // Whether its calls run in the gate's own process (the reference): then nothing else may run
  // beside a call (MPFR's precision is process-wide). Isolated ones work in another process.
  virtual bool in_process() const { return false; }
  // The memory layouts in which it can be handed its [T, H, D] inputs (gate/layouts.hpp): a C
  // plugin's are contiguous (the C ABI), a wire process's are what its hello lists.
  virtual std::vector<std::string> layouts() const { return {"contiguous"}; }
};

// The longest name pe_impl_name may return, NUL not counted.
constexpr std::size_t plugin_name_limit = 256;
// Consecutive deadlines after which an implementation is declared hung (see declared_hung_after_deadlines).
constexpr int hung_after_deadlines = 3;

// How a plugin's calls are isolated (--isolation): all in one worker process, replaced after a fault
// (worker, the default), or each in a worker of its own (call: the slow way, for a plugin suspected
// of keeping state between calls).
enum class plugin_isolation { worker, call };
plugin_isolation parse_isolation(const std::string& name);  // "worker", "call"; input_error otherwise

// Resident memory one plugin call may add to its worker's by default (1 GiB): implementation_flags's
// memory_limit_mib sets another.
constexpr std::size_t default_call_memory_bytes = std::size_t{1} << 30;
// The address space one plugin call may add to its worker's by default (4 GiB, RLIMIT_AS), so an
// allocation far past the memory budget fails at once instead of being touched page by page;
// implementation_flags's address_space sets another, or none: no_address_space_limit, for plugins
// that reserve far more address space than they use (a CUDA context reserves the GPU's memory and
// more, and fails to start under such a cap). The resident-memory budget holds either way.
constexpr std::size_t default_call_address_space_bytes = std::size_t{4} << 30;
constexpr std::size_t no_address_space_limit = SIZE_MAX;
// Why `gib` is no --address-space-gib value (a whole number of GiB from 1 to 2^20, or "unlimited"),
// or empty when it is one.
std::string address_space_gib_problem(const std::string& gib);
// The failure of a call that grew past `budget` bytes; `io_bytes` (the wire's allowance for the
// call's own inputs and outputs, held twice) is named when not 0.
std::string out_of_memory_message(std::size_t budget, std::size_t io_bytes = 0);

// A C ABI plugin (pecheck/impl.h). No code of it runs in the gate's process: a worker process loads
// it and reads its version and name, and throws input_error (exit 2: unusable implementation)
// naming the cause if that fails in any way (will not load, a missing symbol, another ABI version,
// a bad name, an exit, a signal, a hang within `start_timeout_ms`). The worker then serves the calls, each with `timeout_ms`
// and `memory_limit_bytes` of resident memory past the worker's at the call's start, its inputs read-only, its outputs between guard pages. A call that crashes,
// hangs, runs out of memory or writes out of bounds ends the worker, and a fresh one serves the
// next; a crash after earlier calls is tried again in a fresh worker, to tell whose it is.
std::unique_ptr<implementation> load_plugin(const std::string& path, int timeout_ms, int start_timeout_ms,
                                            plugin_isolation isolation = plugin_isolation::worker,
                                            std::size_t memory_limit_bytes = default_call_memory_bytes,
                                            std::size_t address_space_bytes = default_call_address_space_bytes);

// A process speaking the wire protocol (src/gate/README.md: "The wire protocol"), started with /bin/sh -c
// COMMAND in a process group of its own. Throws input_error (exit 2) when it does not answer
// hello within `start_timeout_ms`. A call that hangs (past `timeout_ms`) or dies fails its case,
// the group is killed, and the process is started again for the next, answering hello first under
// the start deadline.
// Each call may grow the process's resident memory, its descendants' included, by
// `memory_limit_bytes` plus twice the call's input and output bytes (the process holds both, and
// an adapter copies them once: NumPy's tobytes); past that it is ended and the call fails as out of memory.
std::unique_ptr<implementation> start_wire(const std::string& command, int timeout_ms, int start_timeout_ms,
                                           std::size_t memory_limit_bytes = default_call_memory_bytes);

// `inner`, declared hung after hung_after_deadlines consecutive timed-out calls: later calls come
// back timed_out at once, saying so, instead of costing a deadline each. Any other answer resets the count.
std::unique_ptr<implementation> declared_hung_after_deadlines(std::unique_ptr<implementation> inner, int timeout_ms);

// `inner`, its calls held to budgets for the whole run: `seconds` of wall time (once they have taken
// it, later calls come back timed_out at once, naming the budget) and `stderr_bytes` written to
// stderr by its processes (stderr_relay: the call during which they pass it, and every later one,
// come back as errors naming it). notes() says how many calls each budget refused.
std::unique_ptr<implementation> within_run_budget(std::unique_ptr<implementation> inner, double seconds, std::uint64_t stderr_bytes);
// The gate's default budget: this many seconds per random case asked of each spec (--cases), so
// 500 s for one spec at the default 100 cases; the example plugin takes about 1 s of it.
constexpr double default_time_budget_per_case_s = 5;
// What the implementation's processes may write to stderr in a run, in MiB, by default
// (implementation_flags::stderr_budget_mib): far above the logs of a kernel that prints a line a
// call, far below the gigabytes a flood fills a CI log with.
constexpr std::uint64_t default_stderr_budget_mib = 8;

// pecheck's own reference at the run's dtype, called in process (no isolation): the project's
// float path put through the gate, and the baseline of `pecheck gate --bench`.
std::unique_ptr<implementation> reference_implementation();

// The implementation a command's flags name: exactly one of --impl LIB (with --isolation),
// --impl-cmd COMMAND and --impl-reference, as gate and audit take them.
struct implementation_flags {
  std::string impl, impl_cmd;  // --impl LIB, --impl-cmd COMMAND
  bool reference = false;      // --impl-reference
  std::string isolation = "worker";
  std::string sandbox = "auto";  // --sandbox: auto, require or off (gate/sandbox.hpp)
  int timeout_ms = 10000, start_timeout_ms = 10000;
  // A call's memory budget in MiB (--memory-limit-mib): load_plugin's and start_wire's.
  std::size_t memory_limit_mib = default_call_memory_bytes >> 20;
  // The address space a plugin call may add, in GiB, or "unlimited" (--address-space-gib).
  std::string address_space_gib = std::to_string(default_call_address_space_bytes >> 30);
  // What its processes may write to stderr in all, in MiB (--stderr-budget-mib): the relay shows
  // that much; the gate fails the calls from the one that passes it.
  std::uint64_t stderr_budget_mib = default_stderr_budget_mib;
  // That in bytes, no_address_space_limit for "unlimited"; input_error (address_space_gib_problem)
  // for anything else.
  std::size_t address_space_bytes() const;
  // The flags as a command line would repeat them (reproduce lines): "--impl 'lib.so'", ...
  std::string text() const;
};
// Settles the sandbox (sandbox::configure, not for the reference) and loads or starts it;
// input_error "COMMAND: give one of ..." unless exactly one is named, --sandbox require where the
// sandbox is unavailable, and the loaders' own input_errors for one that will not start.
std::unique_ptr<implementation> open_implementation(const implementation_flags& flags, const std::string& command);

}  // namespace pe::gate
