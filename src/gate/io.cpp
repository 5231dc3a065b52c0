// Tensors as the gate exchanges them (see io.hpp).
#include "gate/io.hpp"

#include <cmath>

#include <cstring>

#include <fmt/format.h>

#include "pe/error.hpp"
#include "pe/half.hpp"

namespace pe::gate {

std::string_view dtype_name(dtype t) {
  switch (t) {
    case dtype::f64: return "f64";
    case dtype::f32: return "f32";
    case dtype::f16: return "f16";
    case dtype::bf16: return "bf16";
    case dtype::i64: return "i64";
    case dtype::i32: return "i32";
  }
  return "?";
}

dtype parse_dtype(std::string_view name) {
  for (const dtype t : {dtype::f64, dtype::f32, dtype::f16, dtype::bf16})
    if (dtype_name(t) == name) return t;
  throw input_error(fmt::format("--dtype '{}' is not f64, f32, f16 or bf16", name));
}

std::size_t dtype_size(dtype t) {
  switch (t) {
    case dtype::f64: case dtype::i64: return 8;
    case dtype::f32: case dtype::i32: return 4;
    default: return 2;
  }
}

bool is_real(dtype t) { return t == dtype::f64 || t == dtype::f32 || t == dtype::f16 || t == dtype::bf16; }

const float_format& dtype_format(dtype t) {
  switch (t) {
    case dtype::f32: return binary32;
    case dtype::f16: return binary16;
    case dtype::bf16: return bfloat16;
    default: return binary64;
  }
}

double dtype_roundoff(dtype t) { return std::ldexp(1.0, -dtype_format(t).precision); }

std::int64_t io_tensor::elements() const {
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  return n;
}

double lowest_normal(dtype t) { return std::ldexp(1.0, dtype_format(t).emin); }
double subnormal_spacing(dtype t) { return lowest_normal(t) * 2 * dtype_roundoff(t); }

namespace {

// Each of n words of type Word at p, widened to double by `widen`, into out.
template <class Word, class Widen>
void widen_words(const unsigned char* p, std::int64_t n, double* out, Widen widen) {
  for (std::int64_t e = 0; e < n; ++e) {
    Word w;
    std::memcpy(&w, p + e * static_cast<std::int64_t>(sizeof(Word)), sizeof(Word));
    out[e] = widen(w);
  }
}

// Each of n doubles rounded to a word of type Word by `narrow`, stored at p.
template <class Word, class Narrow>
void narrow_words(const double* in, std::int64_t n, unsigned char* p, Narrow narrow) {
  for (std::int64_t e = 0; e < n; ++e) {
    const Word w = narrow(in[e]);
    std::memcpy(p + e * static_cast<std::int64_t>(sizeof(Word)), &w, sizeof(Word));
  }
}

}  // namespace

double io_tensor::at(std::int64_t e) const {
  double v = 0;
  to_doubles(e, e + 1, &v);
  return v;
}

void io_tensor::to_doubles(std::int64_t begin, std::int64_t end, double* out) const {
  const unsigned char* p = bytes.data() + static_cast<std::size_t>(begin) * dtype_size(type);
  const std::int64_t n = end - begin;
  switch (type) {
    case dtype::f64: return widen_words<double>(p, n, out, [](double v) { return v; });
    case dtype::f32: return widen_words<float>(p, n, out, [](float v) { return static_cast<double>(v); });
    case dtype::f16: return widen_words<std::uint16_t>(p, n, out, [](std::uint16_t b) { return static_cast<double>(fp16::from_bits(b)); });
    case dtype::bf16: return widen_words<std::uint16_t>(p, n, out, [](std::uint16_t b) { return static_cast<double>(bf16::from_bits(b)); });
    case dtype::i64: return widen_words<std::int64_t>(p, n, out, [](std::int64_t v) { return static_cast<double>(v); });
    case dtype::i32: return widen_words<std::int32_t>(p, n, out, [](std::int32_t v) { return static_cast<double>(v); });
  }
}

io_tensor real_tensor(std::string name, dtype t, const tensor<double>& values) {
  io_tensor out{std::move(name), t, values.shape, std::vector<unsigned char>(values.data.size() * dtype_size(t))};
  const auto n = static_cast<std::int64_t>(values.data.size());
  unsigned char* p = out.bytes.data();
  switch (t) {
    case dtype::f64: narrow_words<double>(values.data.data(), n, p, [](double x) { return x; }); break;
    case dtype::f32: narrow_words<float>(values.data.data(), n, p, [](double x) { return static_cast<float>(x); }); break;
    case dtype::f16: narrow_words<std::uint16_t>(values.data.data(), n, p, [](double x) { return fp16(x).bits(); }); break;
    case dtype::bf16: narrow_words<std::uint16_t>(values.data.data(), n, p, [](double x) { return bf16(x).bits(); }); break;
    default:
      if (n > 0) throw std::logic_error("real_tensor: not a real dtype");
  }
  return out;
}

io_tensor integer_tensor(std::string name, std::vector<std::int64_t> shape, const std::vector<std::int64_t>& values) {
  io_tensor out{std::move(name), dtype::i64, std::move(shape), std::vector<unsigned char>(values.size() * 8)};
  if (!values.empty()) std::memcpy(out.bytes.data(), values.data(), values.size() * 8);
  return out;
}

io_tensor empty_tensor(std::string name, dtype t, std::vector<std::int64_t> shape) {
  io_tensor out{std::move(name), t, std::move(shape), {}};
  out.bytes.assign(static_cast<std::size_t>(out.elements()) * dtype_size(t), 0);
  return out;
}

tensor<double> as_doubles(const io_tensor& t) {
  tensor<double> out(t.shape);
  t.to_doubles(0, t.elements(), out.data.data());
  return out;
}

}  // namespace pe::gate
