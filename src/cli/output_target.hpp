// Where eval's result goes: stdout, or --output FILE written whole or not at all; bytes gather in blocks.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "cli/atomic_file.hpp"

namespace pecheck {

// Writers append to buffer() and call flush_if_full() after each block of rows; the buffer goes out
// once it holds block_bytes, and the rest at commit(). So a result smaller than one block reaches
// stdout whole or not at all (an error before commit() prints nothing), and a larger one streams
// in blocks: an error mid-way leaves a partial stream on stdout (the exit status says it failed),
// while --output FILE is a temporary file beside FILE, renamed over it only at commit().
class output_target {
 public:
  static constexpr std::size_t block_bytes = std::size_t{16} << 20;

  // path: "" for stdout.
  explicit output_target(const std::string& path);

  std::string& buffer() { return buffer_; }
  void flush_if_full();
  void commit();

 private:
  void write_buffer();

  std::optional<atomic_file> file_;
  std::string buffer_;
};

}  // namespace pecheck
