// A file that appears whole or not at all where a rename can make it so (a temporary beside it, renamed over it at the end), and is written in place where a rename would replace what it names.
#pragma once
#include <string>
#include <string_view>

namespace pecheck {

// Errors are input_errors "FLAG: cannot write PATH[: why]". Until commit() the path is untouched
// and the temporary (PATH.tmp.PID: unique per process, as runs may overlap) is removed on the
// way out, or by SIGINT, SIGTERM or SIGHUP, so a failure mid-way leaves nothing behind; one left by
// a process that was killed outright (SIGKILL) is removed by the next write to the same path.
// A rename replaces what it lands on, so it lands only on a regular file or on nothing:
// * PATH that is this process's own stdout or stderr (/dev/stdout, /proc/self/fd/1, or the file
//   they were redirected to): written through that descriptor, after what the process printed
//   (its C and C++ streams flushed first), as if printed;
// * a link to a regular file: the temporary goes beside the file it names, and the link stays;
// * anything else that is not a regular file (a device such as /dev/null, a FIFO, a link that
//   names nothing): written in place, truncated as the shell's > does.
// Whole or not at all holds only where a rename is made.
class atomic_file {
 public:
  atomic_file(std::string path, const char* flag);
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file();

  void write(std::string_view bytes);
  void commit();
  const std::string& path() const { return path_; }
  bool renamed() const { return !temp_.empty(); }  // written to a temporary and renamed over the path

 private:
  [[noreturn]] void fail(std::string_view why);
  void close_file();

  std::string path_, target_, temp_;  // temp_ empty: written in place
  const char* flag_;
  int fd_ = -1;
  bool committed_ = false;
};

}  // namespace pecheck
