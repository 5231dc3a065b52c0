// The one instantiation of run_op for each supported scalar (keeps MPFR's templates out of other translation units).
#include "pe/ops.hpp"

namespace pe {

template std::vector<named_tensor<double>> run_op<double>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<float>> run_op<float>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<bf16>> run_op<bf16>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<fp16>> run_op<fp16>(std::string_view, const spec&, const op_inputs&);
template std::vector<named_tensor<mp_real>> run_op<mp_real>(std::string_view, const spec&, const op_inputs&);

}  // namespace pe
