// attend's internals in wide precision (Eigen over MPFR): the projected q, k, v that score-terms schemes read.
#pragma once
#include <cstdint>
#include <vector>

#include <Eigen/Dense>
#include <boost/multiprecision/eigen.hpp>
#include <fmt/format.h>

#include "pe/attention.hpp"
#include "pe/error.hpp"
#include "pe/mp.hpp"
#include "pe/tensor.hpp"

namespace pe::detail {

using wide_matrix = Eigen::Matrix<mp_real, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline wide_matrix to_wide(const tensor<double>& t, std::int64_t rows, std::int64_t cols) {
  wide_matrix m(rows, cols);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) m(r, c) = mp_real(t.data[static_cast<size_t>(r * cols + c)]);
  return m;
}

inline void require_shape(const tensor<double>& t, const char* name, size_t rank) {
  if (t.shape.size() != rank) {
    throw input_error(fmt::format("attend: {} has shape [{}]; it needs {} axes", name, fmt::join(t.shape, ", "), rank));
  }
}

// q, k, v in wide precision as [rows, H * D] matrices, after the scheme's input-side changes.
struct projected {
  wide_matrix q, k, v;
  std::int64_t heads, dim, value_dim;
};

projected project(const spec& s, const attend_inputs& in);

// A score-terms scheme's check that it has one qpos per query and one kpos per key.
void require_position_per_token(const spec& s, const attend_inputs& in, const projected& p);

}  // namespace pe::detail
