// What several commands share (see command_support.hpp).
#include "cli/command_support.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>

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

namespace {
// "" where `text` is an integer that fits, or is not a decimal or 0x integer at all (CLI11's own
// reading reports that); the refusal otherwise.
std::string integer_fits(const std::string& text, bool is_unsigned) {
  std::string_view digits = text;
  const bool negative = digits.starts_with('-');
  if (negative || digits.starts_with('+')) digits.remove_prefix(1);
  int base = 10;
  if (digits.starts_with("0x") || digits.starts_with("0X")) digits.remove_prefix(2), base = 16;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [&](char c) { return base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) : std::isdigit(static_cast<unsigned char>(c)); })) {
    return "";
  }
  const std::string refusal = fmt::format("{} is not in {}", text, is_unsigned ? "0 to 2^64 - 1" : "-2^63 to 2^63 - 1");
  if (is_unsigned && negative && digits.find_first_not_of('0') != std::string_view::npos) return refusal;
  std::uint64_t magnitude = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
  const std::uint64_t most = is_unsigned ? UINT64_MAX : (negative ? std::uint64_t{1} << 63 : INT64_MAX);
  return error == std::errc::result_out_of_range || magnitude > most ? refusal : "";
}
}  // namespace

void refuse_integer_overflow(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    const std::string type = option->get_type_name();
    const bool is_unsigned = type.starts_with("UINT");
    if (!is_unsigned && !type.starts_with("INT")) continue;
    option->check(CLI::Validator([is_unsigned](std::string& text) { return integer_fits(text, is_unsigned); }, "", "fits 64 bits"));
  }
  for (CLI::App* command : app.get_subcommands({})) refuse_integer_overflow(*command);
}

void output_files::open(const std::string& path, const char* flag) {
  if (path.empty()) return;
  auto file = std::make_unique<atomic_file>(path, flag);
  for (const auto& other : files_)
    if (other.path == path && other.renamed) {
      throw pe::input_error(fmt::format("{} and {} both name {}: give each output a file of its own", other.flag, flag, path));
    }
  const bool renamed = file->renamed();
  // The temporary removed again, and a regular file written in place (a link that named nothing)
  // closed: nothing of the report is open during the run. A device or FIFO stays open.
  std::error_code ec;
  if (renamed || std::filesystem::is_regular_file(path, ec)) file.reset();
  files_.push_back({flag, path, renamed, std::move(file)});
}

void output_files::finish(const char* flag, const std::string& text) {
  for (auto& f : files_) {
    if (f.flag != flag) continue;
    if (!f.kept) f.kept = std::make_unique<atomic_file>(f.path, flag);
    f.kept->write(text);
    f.kept->commit();
  }
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
  cmd.add_option("--sandbox", f.sandbox,
                 "the implementation's processes: auto (in new user, PID, IPC and network namespaces where the system allows them; "
                 "default), require (exit 2 where it does not) or off")
      ->check(CLI::IsMember({"auto", "require", "off"}))
      ->excludes(own);
  cmd.add_option("--timeout-ms", f.timeout_ms, "time limit of one call")->check(CLI::Range(1, 3600000));
  auto* memory = cmd.add_option("--memory-limit-mib", f.memory_limit_mib,
                                "resident memory one call may add to a plugin's worker, or to a wire process and its children (beyond "
                                "twice the call's inputs and outputs), before it is stopped as a fault (default 1024)")
                     ->check(CLI::Range(16, 1048576));
  memory->excludes(own);  // the reference runs in the gate's own process: nothing to stop
  cmd.add_option("--stderr-budget-mib", f.stderr_budget_mib,
                 "what the implementation's processes may write to stderr in the whole run, in MiB (default 8): past it the rest is "
                 "not shown, and the gate fails the call that passed it and every later one")
      ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{1} << 20))
      ->excludes(own);
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
