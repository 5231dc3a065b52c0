// Runs the pecheck binary (PECHECK_BINARY) through the shell and captures its exit code, stdout and stderr, for the CLI tests.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace pecheck_test {

struct result {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs `pecheck ARGS` through the shell; ARGS is quoted by the caller.
inline result run(const std::string& args) {
  // One stderr file per process and call: ctest runs the cases of a file in parallel.
  static int calls = 0;
  const std::string err_file = ::testing::TempDir() + "pecheck_cli_stderr_" + std::to_string(getpid()) + "_" +
                               std::to_string(++calls) + ".txt";
  const std::string cmd = std::string(PECHECK_BINARY) + " " + args + " 2>" + err_file;
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  std::stringstream err;
  {
    std::ifstream in(err_file);
    err << in.rdbuf();
  }
  std::remove(err_file.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, err.str()};
}

// Bad input: one line on stderr naming what and where, exit 2, and nothing on stdout.
struct bad_call {
  const char* args;
  const char* message;
};

template <std::size_t N>
void expect_one_line_errors(const bad_call (&calls)[N]) {
  for (const auto& b : calls) {
    const auto r = run(b.args);
    EXPECT_EQ(r.exit_code, 2) << b.args;
    EXPECT_EQ(r.err, b.message) << b.args;
    EXPECT_EQ(r.out, "") << b.args;
  }
}

}  // namespace pecheck_test
