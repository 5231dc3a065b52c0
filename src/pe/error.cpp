// Error messages as one line (see error.hpp).
#include "pe/error.hpp"

#include <fmt/format.h>

namespace pe {

std::string one_line(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (const char c : message) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (byte < 0x20 || byte == 0x7f) out += fmt::format("\\x{:02x}", byte);
    else out += c;
  }
  return out;
}

}  // namespace pe
