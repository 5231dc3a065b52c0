// What several commands share: regex options that fail with one clear line, and report files written atomically.
#pragma once
#include <cstdint>
#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/atomic_file.hpp"
#include "gate/implementation.hpp"

namespace pecheck {

// The most attention heads an op's input may have (--heads, an --input file's "heads"): more than
// any model uses, and small enough that a head count never makes a [T, H, D] size overflow.
constexpr std::int64_t max_heads = 4096;

// The option's text as an ECMAScript regex, or an input_error "FLAG 'TEXT' is not a regular expression: why".
std::regex option_regex(const std::string& text, const char* flag);

// Writes text to a temporary file beside path, then renames it over path: a reader never sees half a
// report. Errors are input_errors "FLAG: cannot write PATH[: why]", and leave no temporary behind.
void write_file_atomically(const std::string& path, const std::string& text, const char* flag);

// CLI11 reads an integer past 64 bits as the largest one (strtoll saturates) and -1 for an
// unsigned option as 2^64 - 1: every integer option of `app` and its commands is checked first,
// so --seed 2^64 or --tokens-per-call 99999999999999999999 is refused as written.
void refuse_integer_overflow(CLI::App& app);

// A command's output files, tried before its work so that one that cannot be written is said at
// once (exit 2) instead of after minutes of work, and each written whole at the end as
// write_file_atomically writes it. A file that a rename lands on is tried by creating its
// temporary and removing it again, and created afresh at the end: a temporary held open through
// the run would be inherited by every plugin worker the gate forks (a fork keeps descriptors
// whatever O_CLOEXEC says), which could write into the report; so is a regular file written in
// place (a link that names nothing). A device or FIFO is opened once, at the start, as the shell
// would. Two flags naming one file that a rename would land on
// (each would replace the other) are refused; a device or stdout takes both, in order.
class output_files {
 public:
  // Tries (or opens) `path` for `flag`; nothing for an empty path.
  void open(const std::string& path, const char* flag);
  // Writes and commits the file for `flag`; nothing where none was named.
  void finish(const char* flag, const std::string& text);

 private:
  struct output {
    std::string flag, path;
    bool renamed = false;
    std::unique_ptr<atomic_file> kept;  // a device or FIFO: opened at the start and kept
  };
  std::vector<output> files_;
};

// The bytes of file `path`; input_error "LABEL: cannot read it: why".
std::string read_text_file(const std::string& path, const std::string& label);
// The JSON that file `path` holds, under the depth limit; input_errors "LABEL: cannot read it:
// why", "LABEL: not valid JSON, at line L, column C: why" and the depth limit's.
nlohmann::json read_json_file(const std::string& path, const std::string& label);

// The flags that name the implementation under test (--impl, --impl-cmd, --impl-reference, one at
// most, --isolation for --impl, --timeout-ms, --start-timeout-ms), read into f.
void add_implementation_flags(CLI::App& cmd, pe::gate::implementation_flags& f);

// --baseline FILE, --baseline-factor X (above 1) and --save-baseline FILE, as gate and audit take them.
struct baseline_flags {
  std::string compare, save;
  double factor = 2;
};
void add_baseline_flags(CLI::App& cmd, baseline_flags& f);

}  // namespace pecheck
