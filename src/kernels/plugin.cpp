// pecheck's own kernels as a gate plugin (pecheck/impl.h): rotate for rope specs, on the host emulation or the GPU (backend.hpp).
//
// The spec's frequencies and attention factor come from pecheck's own inv_freq op (so every
// scaling works); what the gate checks is the kernel: its layout, partial rotary, angles, sin and
// cos, the rotation, and f32/f16/bf16 storage. PECHECK_KERNEL_ANGLES picks the angle mode: fast
// or accurate (the default).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "kernels/backend.hpp"
#include "kernels/host_tables.hpp"
#include "pe/spec.hpp"
#include "pecheck/impl.h"

namespace {

using pe::kernels::angle_mode;
using pe::kernels::io_type;

struct unsupported {};

struct failure {
  std::string message;
};

angle_mode angle_mode_from_environment() {
  const char* v = std::getenv("PECHECK_KERNEL_ANGLES");
  if (v == nullptr || std::strcmp(v, "accurate") == 0) return angle_mode::accurate;
  if (std::strcmp(v, "fast") == 0) return angle_mode::fast;
  throw failure{fmt::format("PECHECK_KERNEL_ANGLES={}: use fast or accurate", v)};
}

const pe_tensor* find(const pe_tensor* t, std::int32_t n, const char* name) {
  for (std::int32_t k = 0; k < n; ++k)
    if (std::strcmp(t[k].name, name) == 0) return &t[k];
  return nullptr;
}

io_type io_of(std::int32_t dtype) {
  switch (dtype) {
    case PE_F32: return io_type::f32;
    case PE_F16: return io_type::f16;
    case PE_BF16: return io_type::bf16;
    default: throw unsupported{};  // binary64 I/O: these kernels store binary32 and narrower
  }
}

void run_rotate(const pe::spec& s, const pe_tensor* inputs, std::int32_t n_inputs, pe_tensor* outputs, std::int32_t n_outputs) {
  if (s.scheme() != "rope") throw unsupported{};
  const pe_tensor *x = find(inputs, n_inputs, "x"), *pos = find(inputs, n_inputs, "pos");
  if (x == nullptr || pos == nullptr || n_outputs != 1 || x->rank != 3 || pos->dtype != PE_I64 || pos->rank != 1)
    throw failure{"rotate needs x [T, H, D] and pos [T] (i64), and one output"};
  pe::kernels::rotate_args a{};
  a.io = io_of(x->dtype);
  a.mode = angle_mode_from_environment();
  a.tokens = x->shape[0], a.heads = x->shape[1], a.dim = x->shape[2];
  a.rotary_dim = s.has("rotary_dim") ? s.integer("rotary_dim") : s.integer("dim");
  a.neox = s.choice("layout") == "neox";
  if (a.dim != s.integer("dim") || pos->shape[0] != a.tokens) throw failure{"x's head dim or pos's length does not match the spec"};
  a.x = x->data, a.y = outputs[0].data, a.pos = static_cast<const std::int64_t*>(pos->data);
  const auto tables = pe::kernels::rotate_tables::of(s, {a.pos, static_cast<std::size_t>(a.tokens)});
  if (static_cast<std::int64_t>(tables.inv_freq.size()) != a.rotary_dim / 2) throw failure{"inv_freq does not have rotary_dim/2 frequencies"};
  a.inv_freq = tables.inv_freq.data(), a.turns = tables.turns.data(), a.factor = tables.factor;
  if (const std::string error = pe::kernels::run_rotate(a); !error.empty()) throw failure{error};
}

}  // namespace

extern "C" {

std::int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }

const char* pe_impl_name(void) {
  static const std::string name = fmt::format("pecheck kernels ({})", pe::kernels::backend_name());
  return name.c_str();
}

std::int32_t pe_impl_run(const char* op, const char* spec, const pe_tensor* inputs, std::int32_t n_inputs, pe_tensor* outputs,
                         std::int32_t n_outputs, char* message, std::size_t message_size) {
  try {
    if (std::strcmp(op, "rotate") != 0) return PE_UNSUPPORTED;
    run_rotate(pe::parse_spec(spec), inputs, n_inputs, outputs, n_outputs);
    return PE_OK;
  } catch (const unsupported&) {
    return PE_UNSUPPORTED;
  } catch (const failure& f) {
    std::snprintf(message, message_size, "%s", f.message.c_str());
  } catch (const std::exception& e) {
    std::snprintf(message, message_size, "%s", e.what());
  }
  return PE_ERROR;
}

}  // extern "C"
