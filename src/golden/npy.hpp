// NumPy .npy (format 1.0) bytes for little-endian float32, float64 and int64 arrays.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pe::golden {

std::string npy_bytes(const std::vector<double>& values, const std::vector<std::int64_t>& shape, bool as_float32);
std::string npy_bytes(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& shape);

// The parts of npy_bytes for a writer that streams the data (pecheck eval --format npy): the
// header of an array of `shape` in `descr` ("<f8", "<f4", "<i8"), and values appended as binary64
// or float32 data.
std::string npy_header(const char* descr, const std::vector<std::int64_t>& shape);
void append_npy_values(std::string& out, std::span<const double> values, bool as_float32);

}  // namespace pe::golden
