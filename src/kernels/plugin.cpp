// pecheck's own kernels as a gate plugin (pecheck/impl.h): rotate, rotate_grad, rotate_qk, apply_tables and attend (rope), encode (sinusoidal) and bias (ALiBi, T5), on the host emulation or the GPU (backend.hpp).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "kernels/backend.hpp"
#include "kernels/serve.hpp"
#include "pe/spec.hpp"
#include "pecheck/impl.h"

extern "C" {

std::int32_t pe_impl_abi_version(void) { return PE_IMPL_ABI_VERSION; }

const char* pe_impl_name(void) {
  static const std::string name = fmt::format("pecheck kernels ({})", pe::kernels::backend_name());
  return name.c_str();
}

std::int32_t pe_impl_run(const char* op, const char* spec, const pe_tensor* inputs, std::int32_t n_inputs, pe_tensor* outputs,
                         std::int32_t n_outputs, char* message, std::size_t message_size) {
  namespace k = pe::kernels;
  try {
    const k::call c{inputs, n_inputs, outputs, n_outputs};
    void (*serve)(const pe::spec&, const k::call&) = nullptr;
    if (std::strcmp(op, "rotate") == 0) serve = k::serve_rotate;
    else if (std::strcmp(op, "rotate_grad") == 0) serve = k::serve_rotate_grad;
    else if (std::strcmp(op, "rotate_qk") == 0) serve = k::serve_rotate_qk;
    else if (std::strcmp(op, "apply_tables") == 0) serve = k::serve_apply_tables;
    else if (std::strcmp(op, "encode") == 0) serve = k::serve_encode;
    else if (std::strcmp(op, "bias") == 0) serve = k::serve_bias;
    else if (std::strcmp(op, "attend") == 0) serve = k::serve_attend;
    else return PE_UNSUPPORTED;
    serve(pe::parse_spec(spec), c);
    return PE_OK;
  } catch (const k::unsupported&) {
    return PE_UNSUPPORTED;
  } catch (const k::failure& f) {
    std::snprintf(message, message_size, "%s", f.message.c_str());
  } catch (const std::exception& e) {
    std::snprintf(message, message_size, "%s", e.what());
  }
  return PE_ERROR;
}

}  // extern "C"
