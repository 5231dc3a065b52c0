// A run of an output's values as eval prints them: binary64 numbers turned to text as they are written, or MPFR decimals.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace pecheck {

// Exactly one of the two holds the values: binary64 ones stay numbers until written (no string
// per value: 1M x 128 of them would be ~5 GB of strings); MPFR ones are decimal text already
// (each prints its own digits: pe::to_decimal).
struct value_block {
  std::vector<double> binary64;
  std::vector<std::string> decimals;

  std::size_t size() const { return decimals.empty() ? binary64.size() : decimals.size(); }
  // Appends value k's text; binary64 exactly as pe::to_decimal prints it (17 significant digits).
  void append_text(std::string& out, std::size_t k) const;
};

}  // namespace pecheck
