// The .npy writers: NumPy's format 1.0 header for an output's full shape, then its binary64 values as
// they come; one array to a file, or one file per output in a directory.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"

#include "cli/output.hpp"
#include "cli/output_target.hpp"
#include "golden/npy.hpp"

namespace pecheck {
namespace {

// One array per file ('<f8', C order): eval refuses npy before computing for an op with several
// outputs and for MPFR precisions, so the checks here only guard that contract.
class npy_writer final : public result_writer {
 public:
  explicit npy_writer(output_target& out) : out_(out) {}
  void begin_output(const output_head& h) override {
    if (begun_) throw std::logic_error("npy_writer: a .npy file holds one array");
    begun_ = true;
    out_.buffer() += pe::golden::npy_header("<f8", h.shape);
  }
  void write_rows(std::int64_t, const value_block& values) override {
    if (!values.decimals.empty()) throw std::logic_error("npy_writer: MPFR values have no .npy type");
    pe::golden::append_npy_values(out_.buffer(), values.binary64, false);
    out_.flush_if_full();
  }
  void end_output() override {}
  void finish() override {}

 private:
  output_target& out_;
  bool begun_ = false;
};

// One DIR/NAME.npy per output, each written to a temporary file beside it (atomic_file) and all
// renamed only when the last is complete: a failure leaves no file, and no directory it created.
class npy_directory_writer final : public result_writer {
 public:
  explicit npy_directory_writer(std::string dir) : dir_(std::move(dir)) {
    struct stat st {};
    if (stat(dir_.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode)) throw pe::input_error(fmt::format("--output '{}': not a directory (npy writes one file per output there)", pe::excerpt(dir_)));
    } else if (mkdir(dir_.c_str(), 0777) == 0) {
      created_ = true;
    } else {
      throw pe::input_error(fmt::format("--output '{}': cannot create the directory: {}", pe::excerpt(dir_), std::strerror(errno)));
    }
  }
  ~npy_directory_writer() override {
    files_.clear();  // the temporaries go first, then the directory if it is ours and empty
    if (created_ && !committed_) rmdir(dir_.c_str());
  }
  void begin_output(const output_head& h) override {
    files_.push_back(std::make_unique<atomic_file>(dir_ + "/" + h.name + ".npy", "--output"));
    buffer_ = pe::golden::npy_header("<f8", h.shape);
  }
  void write_rows(std::int64_t, const value_block& values) override {
    if (!values.decimals.empty()) throw std::logic_error("npy_directory_writer: MPFR values have no .npy type");
    pe::golden::append_npy_values(buffer_, values.binary64, false);
    if (buffer_.size() >= output_target::block_bytes) flush();
  }
  void end_output() override { flush(); }
  void finish() override {
    for (auto& f : files_) f->commit();
    committed_ = true;
  }

 private:
  void flush() {
    files_.back()->write(buffer_);
    buffer_.clear();
  }

  std::string dir_;
  bool created_ = false, committed_ = false;
  std::vector<std::unique_ptr<atomic_file>> files_;
  std::string buffer_;
};

}  // namespace

std::unique_ptr<result_writer> make_npy_writer(output_target& out) { return std::make_unique<npy_writer>(out); }
std::unique_ptr<result_writer> make_npy_directory_writer(const std::string& dir) { return std::make_unique<npy_directory_writer>(dir); }

}  // namespace pecheck
