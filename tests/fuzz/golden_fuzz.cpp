// Fuzz target: golden files and MANIFEST.json. An accepted file's canonical text reads back to the same text.
#include "fuzz_support.hpp"

#include "golden/golden_file.hpp"
#include "golden/manifest.hpp"
#include "pe/limits.hpp"
#include "pe/op_schema.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  if (size == 0) return 0;
  static const bool limited = (pe::set_limit("list=256"), true);
  (void)limited;
  // The first byte picks the reader, so one corpus holds both kinds of file.
  const std::string text(text_of(data + 1, size - 1));
  if (data[0] % 2) {
    expect_clean([&] {
      const auto m = pe::golden::parse_manifest(text, "MANIFEST.json");
      const std::string canonical = pe::golden::to_text(m);
      if (pe::golden::to_text(pe::golden::parse_manifest(canonical, "canonical")) != canonical) broken("manifest round trip", canonical);
    });
    return 0;
  }
  expect_clean([&] {
    const auto f = pe::golden::parse_golden(text, "fuzz.json");
    const std::string canonical = pe::golden::to_text(f);
    if (pe::golden::to_text(pe::golden::parse_golden(canonical, "canonical")) != canonical) broken("golden round trip", canonical);
    // Each case's inputs as the op reads them: what verify does before recomputing.
    const pe::spec s = pe::parse_spec_any(f.spec);
    for (const auto& c : f.cases) (void)pe::golden::op_inputs_of(f.op, s, c, "fuzz.json");
  });
  return 0;
}
