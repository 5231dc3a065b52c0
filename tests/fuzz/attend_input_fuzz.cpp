// Fuzz target: attend's --input JSON on a relative scheme and on an absolute one, then attend itself on what was accepted.
#include "fuzz_support.hpp"

#include "cli/input_file.hpp"
#include "pe/limits.hpp"
#include "pe/ops.hpp"
#include "pe/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  if (size == 0) return 0;
  // Small limits: attend at 256 bits over fuzzer-sized inputs must stay fast.
  static const bool limited = (pe::set_limit("input_values=512"), pe::set_limit("list=64"), true);
  (void)limited;
  static const pe::spec relative = pe::parse_spec("t5(heads=2)");
  static const pe::spec absolute = pe::parse_spec("sinusoidal(dim=4)");
  // The first byte picks the scheme, so one corpus serves both input layouts.
  const pe::spec& s = data[0] % 2 ? absolute : relative;
  const std::string_view text = text_of(data + 1, size - 1);
  expect_clean([&] {
    const pe::op_inputs in = pecheck::read_input_text(text, "--input", "attend", s);
    // Accepted inputs run: a shape the reader let through must be refused by attend, not crash it.
    (void)pe::run_op<double>("attend", s, in);
  });
  return 0;
}
