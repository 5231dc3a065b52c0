// Memory layouts in which a wire adapter hands a call's [T, H, D] inputs to the function it serves, and the gate's passes over them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gate/implementation.hpp"

namespace pe::gate {

// The layouts the wire protocol names (src/gate/README.md, "The wire protocol", item 4). The function always sees a
// [T, H, D] array; what differs is the memory under it:
//   contiguous    row-major [T, H, D], the wire's own order;
//   padded_heads  a slice [..., :D] of a [T, H, D + 64] buffer: heads D + 64 apart;
//   transposed    the [T, H, D] view of a row-major [H, T, D] buffer;
//   packed_qkv    the middle (key) third of a packed [T, 3H, D] q, k, v buffer: an offset and a
//                 token stride of 3HD.
// Every input of rank 3 is presented so; positions and tables stay contiguous.
const std::vector<std::string>& known_layouts();

// What a process's hello offers as its `layouts` field (absent: contiguous alone), or why it is
// no list of known layout names.
struct offered_layouts {
  std::vector<std::string> names;
  std::string problem;
};
offered_layouts layouts_of_hello(const nlohmann::json& hello);

// The layouts a run checks: `asked` (--layouts) when given, each of which the implementation
// must offer (input_error naming what it offers otherwise), else every one it offers.
std::vector<std::string> layouts_to_run(const std::vector<std::string>& asked, const implementation& impl);

// `inner` with each call's rank-3 inputs marked to be presented in `layout` (contiguous ones are
// left unmarked, so the requests of a contiguous pass are byte for byte those of a run without
// layouts). `inner` must outlive it.
std::unique_ptr<implementation> presented_in(implementation& inner, const std::string& layout);

}  // namespace pe::gate
