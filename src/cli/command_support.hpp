// What several commands share: regex options that fail with one clear line, and report files written atomically.
#pragma once
#include <cstdint>
#include <regex>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

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

// The bytes of file `path`; input_error "LABEL: cannot read it: why".
std::string read_text_file(const std::string& path, const std::string& label);
// The JSON that file `path` holds, under the depth limit; input_errors "LABEL: cannot read it:
// why", "LABEL: invalid JSON: why" and the depth limit's.
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
