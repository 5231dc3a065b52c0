// The spec_error message a spec text raises, or "(no error)": the tests compare messages word for word.
#pragma once
#include <string>

#include "pe/error.hpp"
#include "pe/spec.hpp"

namespace pe_test {

inline std::string spec_error_of(const std::string& text) {
  try {
    pe::parse_spec_any(text);
  } catch (const pe::spec_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace pe_test
