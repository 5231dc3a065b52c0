// Reading NumPy .npy files (format 1.0, 2.0, 3.0) of little-endian reals and integers, strictly and within limits.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pe::golden {

// One array as read: its dtype as NumPy spells it ("<f8", "<f4", "<f2", "<i8", "<i4"), its shape,
// and its values row-major, converted exactly: reals (f8, f4, f2) as binary64, integers as int64.
struct npy_array {
  std::string descr;
  std::vector<std::int64_t> shape;
  std::vector<double> reals;            // for a real dtype
  std::vector<std::int64_t> integers;   // for an integer dtype
  bool is_real() const { return descr.size() == 3 && descr[1] == 'f'; }
};

// The header of `bytes` read and checked, then the data: pe::input_error naming `where` and what is
// wrong (the byte offset where it helps) for a wrong magic or version, a header that is not the
// dict NumPy writes ('descr', 'fortran_order', 'shape', each once), another dtype (big-endian,
// complex, objects: refused, never reinterpreted), Fortran order, more than 32 dimensions, or data
// whose length is not the shape's. The shape's element count is checked against
// limit::input_values before anything is allocated.
npy_array read_npy(std::string_view bytes, const std::string& where);

// The same from a file: its header is read first, so a file announcing more values than the limit
// is refused before its data is read.
npy_array read_npy_file(const std::string& path, const std::string& where);

}  // namespace pe::golden
