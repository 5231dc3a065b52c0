// What several commands share (see command_support.hpp).
#include "cli/command_support.hpp"

#include <fmt/format.h>

#include "cli/atomic_file.hpp"
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

}  // namespace pecheck
