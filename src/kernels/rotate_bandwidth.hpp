// What the rotate bandwidth benchmark (rotate_bandwidth.cu, C++17 under nvcc) asks of pecheck's reference (rotate_bandwidth_spec.cpp, C++20): a rope spec's launch parameters and tables.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pe::kernels {

// One rope spec's share of a rotate launch, as serve_rotate (serve_angles.cpp) fills it: the
// head dim, the rotated part and its pairing, and the tables for positions 0..tokens-1.
struct bandwidth_rope {
  std::int64_t dim = 0, rotary_dim = 0;
  bool neox = true;
  double factor = 1;
  std::vector<float> inv_freq;        // [rotary_dim/2]
  std::vector<std::uint64_t> turns;   // [rotary_dim/2][2]
  std::string text;                   // the spec's canonical text, for the report
};

// Parses `spec` (throws std::exception on a malformed one or a scheme other than rope) and
// computes its tables (host_tables.hpp's rotate_tables) for `tokens` positions 0..tokens-1.
bandwidth_rope bandwidth_rope_of(const std::string& spec, std::int64_t tokens);

}  // namespace pe::kernels
