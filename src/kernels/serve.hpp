// What the plugin's op servers share: how they answer unsupported or failed, and how they read the gate's tensors (pecheck/impl.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>

#include <fmt/format.h>

#include "kernels/angles.hpp"
#include "kernels/storage.hpp"
#include "pe/spec.hpp"
#include "pecheck/impl.h"

namespace pe::kernels {

// Thrown for a spec or dtype these kernels do not serve: the call answers PE_UNSUPPORTED.
struct unsupported {};

// Thrown for a malformed call: PE_ERROR with this message.
struct failure {
  std::string message;
};

// The call's tensors, as pe_impl_run receives them.
struct call {
  const pe_tensor* inputs;
  std::int32_t n_inputs;
  pe_tensor* outputs;
  std::int32_t n_outputs;
};

// The input named `name`, or nullptr.
inline const pe_tensor* find_input(const call& c, const char* name) {
  for (std::int32_t k = 0; k < c.n_inputs; ++k)
    if (std::strcmp(c.inputs[k].name, name) == 0) return &c.inputs[k];
  return nullptr;
}

// Positions `name` [n] (i64): failure when it is missing or not that.
inline std::span<const std::int64_t> positions(const call& c, const char* op, const char* name) {
  const pe_tensor* t = find_input(c, name);
  if (t == nullptr || t->dtype != PE_I64 || t->rank != 1) throw failure{fmt::format("{} needs {} [n] (i64)", op, name)};
  return {static_cast<const std::int64_t*>(t->data), static_cast<std::size_t>(t->shape[0])};
}

// The element type of real tensors in these kernels.
inline io_type io_of(std::int32_t dtype) {
  switch (dtype) {
    case PE_F32: return io_type::f32;
    case PE_F16: return io_type::f16;
    case PE_BF16: return io_type::bf16;
    default: throw unsupported{};  // binary64 I/O: these kernels store binary32 and narrower
  }
}

// The call's one output, which must have `shape`.
inline pe_tensor& only_output(const call& c, const char* op, std::initializer_list<std::int64_t> shape) {
  const auto matches = [&] {
    if (c.n_outputs != 1 || c.outputs[0].rank != static_cast<std::int32_t>(shape.size())) return false;
    return std::equal(shape.begin(), shape.end(), c.outputs[0].shape);
  };
  if (!matches()) throw failure{fmt::format("{} needs one output of shape [{}]", op, fmt::join(shape, ", "))};
  return c.outputs[0];
}

// The angle mode PECHECK_KERNEL_ANGLES names: fast, or accurate (the default); failure for any other.
angle_mode angle_mode_from_environment();

// The op servers (serve_angles.cpp, serve_bias.cpp, serve_attend.cpp): unsupported for a spec they do not take.
void serve_rotate(const pe::spec& s, const call& c);
void serve_rotate_grad(const pe::spec& s, const call& c);
void serve_rotate_qk(const pe::spec& s, const call& c);
void serve_apply_tables(const pe::spec& s, const call& c);
void serve_encode(const pe::spec& s, const call& c);
void serve_bias(const pe::spec& s, const call& c);
void serve_attend(const pe::spec& s, const call& c);

}  // namespace pe::kernels
