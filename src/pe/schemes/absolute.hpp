// Absolute encodings without frequencies: integer, normalized, binary, learned and none (NoPE).
#pragma once
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/scalar.hpp"
#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// integer(dim): every component of position p is p (seed 000 option 1; seed 003). Grows
// without bound; in bf16 it cannot even count: 257 is stored as 256.
template <class T>
tensor<T> integer_encode(const spec& s, std::span<const std::int64_t> pos) {
  tensor<T> out({static_cast<std::int64_t>(pos.size()), s.integer("dim")});
  for (size_t t = 0; t < pos.size(); ++t) {
    const T v = store_integer<T>(pos[t]);
    for (std::int64_t j = 0; j < out.shape[1]; ++j) out(t, j) = v;
  }
  return out;
}

// normalized(dim, length): every component is p / length for 0 <= p < length (seed 000
// option 2). The same position gets a different code in a sequence of another length.
template <class T>
tensor<T> normalized_encode(const spec& s, std::span<const std::int64_t> pos) {
  const std::int64_t length = s.integer("length");
  tensor<T> out({static_cast<std::int64_t>(pos.size()), s.integer("dim")});
  for (size_t t = 0; t < pos.size(); ++t) {
    if (pos[t] < 0 || pos[t] >= length) {
      throw input_error(fmt::format("normalized: position {} is outside the sequence [0, {}) of length={}",
                                    pos[t], length, length));
    }
    const T v = store_ratio<T>(pos[t], length);  // one correctly rounded division
    for (std::int64_t j = 0; j < out.shape[1]; ++j) out(t, j) = v;
  }
  return out;
}

// binary(dim): component j is bit j of p, least significant first (seed 000 option 3,
// seed 003). Only the low dim bits are kept, so p and p + 2^dim share a code: codes are
// unique for 0 <= p < 2^dim only.
template <class T>
tensor<T> binary_encode(const spec& s, std::span<const std::int64_t> pos) {
  using C = compute_t<T>;
  tensor<T> out({static_cast<std::int64_t>(pos.size()), s.integer("dim")});
  for (size_t t = 0; t < pos.size(); ++t) {
    if (pos[t] < 0) throw input_error(fmt::format("binary: position {} is negative; bits need p >= 0", pos[t]));
    for (std::int64_t j = 0; j < out.shape[1]; ++j) {
      const bool bit = j < 63 && ((pos[t] >> j) & 1);
      out(t, j) = store_as<T>(C(bit ? 1 : 0));
    }
  }
  return out;
}

// learned(dim, max_len, init_std, seed): a table standing in for trained weights. Entry
// (p, j) is init_std * sqrt(-2 ln u1) * cos(2 pi u2) (Box-Muller), u1 in (0, 1] and u2 in
// [0, 1) from splitmix64 of (seed, p * dim + j), evaluated with MPFR and rounded once to
// binary64, so the table is the same on every machine. Positions >= max_len are an error.
double learned_entry(std::uint64_t seed, std::int64_t index, double init_std);
// Entries first .. first + count - 1 of the same stream (a table laid out row-major).
std::vector<double> learned_entries(std::uint64_t seed, std::int64_t first, std::int64_t count, double init_std);

template <class T>
tensor<T> learned_encode(const spec& s, std::span<const std::int64_t> pos) {
  using C = compute_t<T>;
  const std::int64_t dim = s.integer("dim"), max_len = s.integer("max_len");
  tensor<T> out({static_cast<std::int64_t>(pos.size()), dim});
  for (size_t t = 0; t < pos.size(); ++t) {
    if (pos[t] < 0 || pos[t] >= max_len) {
      throw input_error(fmt::format("learned: position {} is outside the table [0, {}) (max_len={})", pos[t],
                                    max_len, max_len));
    }
    for (std::int64_t j = 0; j < dim; ++j) {
      const double w = learned_entry(static_cast<std::uint64_t>(s.integer("seed")), pos[t] * dim + j, s.real("init_std"));
      out(t, j) = store_as<T>(C(w));
    }
  }
  return out;
}

// none(dim): NoPE, adds nothing; the zero vectors only give the output its shape.
template <class T>
tensor<T> none_encode(const spec& s, std::span<const std::int64_t> pos) {
  using C = compute_t<T>;
  tensor<T> out({static_cast<std::int64_t>(pos.size()), s.integer("dim")});
  for (auto& v : out.data) v = store_as<T>(C(0));
  return out;
}

}  // namespace pe
