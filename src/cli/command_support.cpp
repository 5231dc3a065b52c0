// What several commands share (see command_support.hpp).
#include "cli/command_support.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

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
  const std::string temp = fmt::format("{}.tmp.{}", path, getpid());  // unique per process: runs may overlap
  {
    std::ofstream f(temp, std::ios::binary | std::ios::trunc);
    if (!f) throw pe::input_error(fmt::format("{}: cannot write {}", flag, path));
    f << text;
    f.flush();
    if (!f) {
      std::remove(temp.c_str());
      throw pe::input_error(fmt::format("{}: cannot write {}", flag, path));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::remove(temp.c_str());
    throw pe::input_error(fmt::format("{}: cannot write {}: {}", flag, path, ec.message()));
  }
}

}  // namespace pecheck
