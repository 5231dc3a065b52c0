// Tensors as the gate exchanges them with an implementation: a dtype, a shape and raw little-endian bytes.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pe/float_format.hpp"
#include "pe/tensor.hpp"

namespace pe::gate {

// The dtypes of pecheck/impl.h, in its numbering.
enum class dtype : std::int32_t { f64 = 0, f32 = 1, f16 = 2, bf16 = 3, i64 = 4, i32 = 5 };

std::string_view dtype_name(dtype t);
dtype parse_dtype(std::string_view name);  // "f64", "f32", "f16", "bf16"; input_error otherwise
std::size_t dtype_size(dtype t);
bool is_real(dtype t);
// The unit roundoff of a real dtype: 2^-53, 2^-24, 2^-11, 2^-8.
double dtype_roundoff(dtype t);
const float_format& dtype_format(dtype t);
// The smallest normal number of a real dtype: 2^-1022, 2^-126, 2^-14, 2^-126.
double lowest_normal(dtype t);
// The spacing of a real dtype's subnormals, its absolute resolution near 0: 2^-1074, 2^-149,
// 2^-24, 2^-133 (the smallest normal times 2u).
double subnormal_spacing(dtype t);

struct io_tensor {
  std::string name;
  dtype type = dtype::f32;
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;
  // How a wire adapter presents this input to the function it serves (gate/layouts.hpp): "" for
  // contiguous, the bytes' own order. The bytes are row-major whatever it says.
  std::string layout;

  std::int64_t elements() const;
  // Element e as double (exact for every dtype).
  double at(std::int64_t e) const;
  // Elements [begin, end) as doubles into out, as at() gives them: the dtype read once, not per element.
  void to_doubles(std::int64_t begin, std::int64_t end, double* out) const;
};

// A real tensor stored in `t` (each value rounded once to the dtype), or integers stored exactly.
io_tensor real_tensor(std::string name, dtype t, const tensor<double>& values);
io_tensor integer_tensor(std::string name, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values);
// An output to be filled: shape and dtype, zeroed bytes.
io_tensor empty_tensor(std::string name, dtype t, std::vector<std::int64_t> shape);
// The values of a real tensor as doubles (after the dtype's rounding).
tensor<double> as_doubles(const io_tensor& t);

}  // namespace pe::gate
