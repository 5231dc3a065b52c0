// What several commands share: regex options that fail with one clear line, and report files written atomically.
#pragma once
#include <regex>
#include <string>

namespace pecheck {

// The option's text as an ECMAScript regex, or an input_error "FLAG 'TEXT' is not a regular expression: why".
std::regex option_regex(const std::string& text, const char* flag);

// Writes text to a temporary file beside path, then renames it over path: a reader never sees half a
// report. Errors are input_errors "FLAG: cannot write PATH[: why]", and leave no temporary behind.
void write_file_atomically(const std::string& path, const std::string& text, const char* flag);

}  // namespace pecheck
