// Error types of the reference library: a bad description (spec_error) or bad data (input_error).
#pragma once
#include <stdexcept>
#include <string>

namespace pe {

// A spec that does not parse or validate. The message names the scheme, the field,
// the value and the reason, e.g. "sinusoidal: dim=5 is odd; sin/cos pairs need an even dim".
struct spec_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Inputs outside a scheme's domain, e.g. a position past a learned table's max_len.
struct input_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace pe
