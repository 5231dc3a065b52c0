// Temporary file, then rename (see atomic_file.hpp).
#include "cli/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pecheck {

atomic_file::atomic_file(std::string path, const char* flag)
    : path_(std::move(path)), temp_(fmt::format("{}.tmp.{}", path_, getpid())), flag_(flag),
      file_(temp_, std::ios::binary | std::ios::trunc) {
  if (!file_) throw pe::input_error(fmt::format("{}: cannot write {}", flag_, path_));
}

atomic_file::~atomic_file() {
  if (committed_) return;
  file_.close();
  std::remove(temp_.c_str());
}

void atomic_file::fail(std::string_view why) {
  file_.close();
  std::remove(temp_.c_str());
  committed_ = true;  // nothing left to remove
  throw pe::input_error(why.empty() ? fmt::format("{}: cannot write {}", flag_, path_)
                                    : fmt::format("{}: cannot write {}: {}", flag_, path_, why));
}

void atomic_file::write(std::string_view bytes) {
  file_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file_) fail("");
}

void atomic_file::commit() {
  file_.close();
  if (!file_) fail("");
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) fail(ec.message());
  committed_ = true;
}

}  // namespace pecheck
