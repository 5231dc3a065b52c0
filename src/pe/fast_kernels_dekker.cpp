// The fast binary64 kernels with Dekker's exact product: for any binary64 machine.
#define PE_FORCE_DEKKER
#include "pe/fast_kernels_body.hpp"
#undef PE_FORCE_DEKKER

namespace pe {

const fast_kernels dekker_kernels = kernels_of_this_flavour("dekker");

}  // namespace pe
