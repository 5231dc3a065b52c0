// The one instantiation of `encode` for each supported scalar (keeps MPFR out of other translation units).
#include "pe/encode.hpp"

namespace pe {

template tensor<double> encode<double>(const spec&, std::span<const std::int64_t>);
template tensor<float> encode<float>(const spec&, std::span<const std::int64_t>);
template tensor<bf16> encode<bf16>(const spec&, std::span<const std::int64_t>);
template tensor<fp16> encode<fp16>(const spec&, std::span<const std::int64_t>);
template tensor<mp_real> encode<mp_real>(const spec&, std::span<const std::int64_t>);

}  // namespace pe
