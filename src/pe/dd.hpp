// The double-double value type that the fast binary64 kernels and their callers share.
#pragma once

namespace pe {

// hi + lo with |lo| <= ulp(hi)/2 (normalized), about 106 bits. Its arithmetic is in
// double_double.hpp, compiled only into the kernels (fast_kernels.hpp).
struct dd {
  double hi = 0, lo = 0;
};

// -x, exact. Internal linkage (static): each file gets its own copy, so a copy compiled for FMA
// hardware can never stand in for another file's (fast_kernels_fma.cpp).
[[maybe_unused]] static inline dd operator-(dd x) { return {-x.hi, -x.lo}; }

}  // namespace pe
