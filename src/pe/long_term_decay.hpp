// RoFormer's long-term decay figure (Su et al. 2021, section 3.4.3): the upper bound (1/(d/2)) sum_j |S_j| of RoPE's
// relative score against the relative distance, S_j = sum_{k<j} e^{i r theta_k}, theta_k = base^(-2k/d).
#pragma once
#include <cstdint>

#include "pe/mp.hpp"

namespace pe {

// (1/(d/2)) sum_{j=1}^{d/2} |S_j| at relative distance r, in T (double, or MPFR at the precision in
// force). |sum_k h_k e^{i r theta_k}| <= max_k |h_{k+1} - h_k| sum_j |S_j| by Abel summation: the
// figure is this bound per unit of max |h_{k+1} - h_k| and per pair (proofs/rope.long_term_decay.md).
// d even, >= 2; base > 1.
template <class T>
T roformer_decay_bound(std::int64_t d, double base, std::int64_t r);

extern template double roformer_decay_bound<double>(std::int64_t, double, std::int64_t);
extern template mp_real roformer_decay_bound<mp_real>(std::int64_t, double, std::int64_t);

}  // namespace pe
