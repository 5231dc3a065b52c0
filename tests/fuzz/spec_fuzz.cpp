// Fuzz target: the spec parser, text and JSON. An accepted spec's canonical text parses back to itself.
#include "fuzz_support.hpp"

#include "pe/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  const std::string_view text = text_of(data, size);
  expect_clean([&] {
    const pe::spec s = pe::parse_spec_any(text);
    // The canonical text (every default filled in) is a spec that reads back to the same text.
    const std::string canonical = s.text();
    const pe::spec again = pe::parse_spec(canonical);
    if (again.text() != canonical) broken("canonical text does not read back to itself", canonical);
  });
  return 0;
}
