// NumPy .npy (format 1.0) bytes for little-endian float32, float64 and int64 arrays.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace pe::golden {

std::string npy_bytes(const std::vector<double>& values, const std::vector<std::int64_t>& shape, bool as_float32);
std::string npy_bytes(const std::vector<std::int64_t>& values, const std::vector<std::int64_t>& shape);

}  // namespace pe::golden
