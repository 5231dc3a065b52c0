// The .npy writer: NumPy's format 1.0 header for the output's full shape, then its binary64 values as they come.
#include <stdexcept>

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

}  // namespace

std::unique_ptr<result_writer> make_npy_writer(output_target& out) { return std::make_unique<npy_writer>(out); }

}  // namespace pecheck
