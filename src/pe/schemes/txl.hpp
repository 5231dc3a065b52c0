// Transformer-XL's relative attention score (Dai et al. 2019): content, content-position, global content and global position terms.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "pe/spec.hpp"
#include "pe/tensor.hpp"

namespace pe {

// A_ij = q_i . k_j                 (a) content
//      + q_i . W_R R_(i-j)         (b) content-dependent position
//      + u . k_j                   (c) global content bias
//      + v . W_R R_(i-j)           (d) global position bias
// per head, with R the sinusoid of the distance i - j in TXL's layout ([sin | cos], paper
// frequencies; sinusoidal(dim=r_dim, layout=concat)). W_R [r_dim, heads * dim], u and v
// [heads * dim] stand in for trained weights: learned_entry(seed, index, init_std) over W_R's
// entries, then u's, then v's. attend scales the sum by 1/sqrt(dim).
struct txl_weights {
  std::int64_t heads = 0, dim = 0, r_dim = 0;
  std::vector<double> w_r, u, v;
};

txl_weights make_txl_weights(const spec& s);

struct attend_inputs;
// Transformer-XL's terms for the given inputs, [H, T, S] each, unscaled (a + b + c + d = A_ij).
std::array<tensor<mp_real>, 4> txl_score_terms(const spec& s, const attend_inputs& in);

}  // namespace pe
