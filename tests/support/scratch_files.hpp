// Scratch folders for tests that write files through pecheck: a fresh folder, its listing, a file's bytes.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace pecheck_test {

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The names in dir, sorted: a temporary left behind shows here.
inline std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// An empty folder of its own under the test's temporary directory (per process: ctest runs the
// cases of a file in parallel).
inline std::string fresh_dir(const char* name) {
  const std::string dir = ::testing::TempDir() + "pecheck_" + name + "_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace pecheck_test
