// The one instantiation of the RoPE ops for each supported scalar.
#include "pe/ops.hpp"

namespace pe {

template std::vector<named_tensor<double>> rope_op<double>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<float>> rope_op<float>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<bf16>> rope_op<bf16>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<fp16>> rope_op<fp16>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<mp_real>> rope_op<mp_real>(std::string_view, const spec&, const op_inputs&);

}  // namespace pe
