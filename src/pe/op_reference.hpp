// How the reference computes each op at every scalar type: the `run` of each op's descriptor (op_schema.cpp), defined in ops.cpp.
#pragma once
#include "pe/ops.hpp"

namespace pe::reference_runs {

using run = typed_hook<op_run_signature>;

run encode();    // pe [T, dim]
run inv_freq();  // inv_freq [pairs], attention_factor []
run rotate();    // y [T, H, D]
run rotate_grad();  // dx [T, H, D] = J^T dy
run rotate_qk();  // q_out [T, Hq, D], k_out [T, Hk, D]: q and k rotated in one call
run apply_tables();  // y [T, H, D] from x and cos, sin [T, pairs]
run matrix();    // R [D, D] at one position
run scale();     // scale [T]
run bucket();    // bucket [N]
run bias();      // bias [H, T, S]
run attend();    // out [T, H, Dv]

}  // namespace pe::reference_runs
