// A file that appears whole or not at all: written under a temporary name beside it, renamed over it at the end.
#pragma once
#include <fstream>
#include <string>
#include <string_view>

namespace pecheck {

// Errors are input_errors "FLAG: cannot write PATH[: why]". Until commit() the path is untouched
// and the temporary (PATH.tmp.PID: unique per process, as runs may overlap) is removed on the
// way out, or by SIGINT, SIGTERM or SIGHUP, so a failure mid-way leaves nothing behind.
class atomic_file {
 public:
  atomic_file(std::string path, const char* flag);
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file();

  void write(std::string_view bytes);
  void commit();

 private:
  [[noreturn]] void fail(std::string_view why);

  std::string path_, temp_;
  const char* flag_;
  std::ofstream file_;
  bool committed_ = false;
};

}  // namespace pecheck
