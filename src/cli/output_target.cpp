// stdout or an atomic file behind one buffer (see output_target.hpp).
#include "cli/output_target.hpp"

#include <cerrno>
#include <cstdio>
#include <system_error>

namespace pecheck {

output_target::output_target(const std::string& path) {
  if (!path.empty()) file_.emplace(path, "--output");
  buffer_.reserve(block_bytes + block_bytes / 4);
}

void output_target::write_buffer() {
  if (file_) {
    file_->write(buffer_);
  } else if (std::fwrite(buffer_.data(), 1, buffer_.size(), stdout) != buffer_.size()) {
    // main reports it as "cannot write the output: why", exit 1, as for every command's stdout.
    throw std::system_error(errno, std::generic_category());
  }
  buffer_.clear();
}

void output_target::flush_if_full() {
  if (buffer_.size() >= block_bytes) write_buffer();
}

void output_target::commit() {
  write_buffer();
  if (file_) file_->commit();
}

}  // namespace pecheck
