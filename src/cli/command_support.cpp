// What several commands share (see command_support.hpp).
#include "cli/command_support.hpp"

#include <fmt/format.h>

#include "cli/atomic_file.hpp"
#include "pe/bounded_file.hpp"
#include "pe/bounded_json.hpp"
#include "pe/error.hpp"

namespace pecheck {

std::regex option_regex(const std::string& text, const char* flag) {
  try {
    return std::regex(text, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw pe::input_error(fmt::format("{} '{}' is not a regular expression: {}", flag, text, e.what()));
  }
}

void write_file_atomically(const std::string& path, const std::string& text, const char* flag) {
  atomic_file f(path, flag);
  f.write(text);
  f.commit();
}

std::string read_text_file(const std::string& path, const std::string& label) { return pe::read_bounded_file(path, label); }

nlohmann::json read_json_file(const std::string& path, const std::string& label) { return pe::parse_json_bounded(read_text_file(path, label), label); }

void add_implementation_flags(CLI::App& cmd, pe::gate::implementation_flags& f) {
  auto* lib = cmd.add_option("--impl", f.impl, "the implementation: a shared library exporting pecheck/impl.h");
  auto* wire = cmd.add_option("--impl-cmd", f.impl_cmd, "the implementation: a command speaking the wire protocol on stdin/stdout");
  auto* own = cmd.add_flag("--impl-reference", f.reference, "the implementation: pecheck's own reference at --dtype, in process");
  lib->excludes(wire)->excludes(own);
  wire->excludes(own);
  cmd.add_option("--isolation", f.isolation,
                 "--impl's calls: worker (one process serves them, replaced after a fault; default) or call (a process per call)")
      ->check(CLI::IsMember({"worker", "call"}))
      ->needs(lib);
  cmd.add_option("--timeout-ms", f.timeout_ms, "time limit of one call")->check(CLI::Range(1, 3600000));
  auto* memory = cmd.add_option("--memory-limit-mib", f.memory_limit_mib,
                                "resident memory one call may add to a plugin's worker, or to a wire process and its children (beyond "
                                "twice the call's inputs and outputs), before it is stopped as a fault (default 1024)")
                     ->check(CLI::Range(16, 1048576));
  memory->excludes(own);  // the reference runs in the gate's own process: nothing to stop
  cmd.add_option("--address-space-gib", f.address_space_gib,
                 "address space one call may add to a plugin's worker before its allocations fail (RLIMIT_AS; default 4), or "
                 "unlimited: a CUDA plugin needs unlimited, since its context reserves address space for the whole GPU")
      ->check(pe::gate::address_space_gib_problem)
      ->needs(lib);
  cmd.add_option("--start-timeout-ms", f.start_timeout_ms,
                 "time limit for the implementation to start: loading the plugin in its worker, a wire process's hello (default 10000)")
      ->check(CLI::Range(1, 3600000));
}

void add_baseline_flags(CLI::App& cmd, baseline_flags& f) {
  cmd.add_option("--baseline", f.compare, "compare with a baseline saved by --save-baseline: fail (exit 1) where the run regressed");
  cmd.add_option("--baseline-factor", f.factor, "how much a measure may grow against --baseline before it counts as a regression (default 2)")
      ->check(CLI::Range(1.0, 1e6));
  cmd.add_option("--save-baseline", f.save, "write this run's baseline (small diffable text) to FILE");
}

}  // namespace pecheck
