// RoFormer's long-term decay as an HTML section: the bound against relative distance drawn, and its golden distances at 256 bits.
#pragma once
#include <string>

namespace pe::audit {

// An <h2> section: what the bound is, the curve for d = 128, base 10^4 (binary64), and the table of
// the golden distances (golden/figures/roformer_decay.txt) at 256 bits. It is about the scheme,
// not a kernel: `pecheck check --html` shows it.
std::string decay_section();

}  // namespace pe::audit
