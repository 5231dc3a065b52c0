// Error types of the reference library: a bad description (spec_error) or bad data (input_error).
#pragma once
#include <stdexcept>
#include <string>
#include <string_view>

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

// A message as one line: newlines, tabs and other control bytes written as \n, \t, \xNN. Every
// command prints its errors through it (cli/main.cpp), so a spec or file name with a newline
// cannot split the line that CI logs and scripts read.
std::string one_line(std::string_view message);

// Text from an input as an error message quotes it: cut to its first 100 characters and "..."
// when longer than 120, so a 10 MB argument makes a short message, and its control bytes written
// as one_line writes them: a NUL would otherwise end the message where what() is read as C text.
inline std::string excerpt(std::string_view s) { return s.size() <= 120 ? one_line(s) : one_line(s.substr(0, 100)) + "..."; }

}  // namespace pe
