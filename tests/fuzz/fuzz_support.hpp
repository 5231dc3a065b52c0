// What every fuzz target shares: the input as text, and the one rule that a rejection is a pe error.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <string_view>

#include "pe/error.hpp"

namespace pecheck::fuzz {

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

// A property of an accepted input that does not hold: a finding (libFuzzer saves the input).
[[noreturn]] inline void broken(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz property broken: %s: %.*s\n", what, static_cast<int>(std::min<std::size_t>(detail.size(), 400)), detail.data());
  std::abort();
}

// Runs body(); a spec_error or input_error (a clean, one-line rejection) is the expected outcome
// for bad input. Any other exception escapes: libFuzzer reports it as a crash, and it is a
// finding, since the command line would print "internal error" for it. A message with a newline
// is a finding too (cli/main.cpp makes it one line, but a library error should already be one).
template <class Body>
void expect_clean(const Body& body) {
  try {
    body();
  } catch (const pe::spec_error&) {
  } catch (const pe::input_error&) {
  }
}

}  // namespace pecheck::fuzz
