// Fuzz target: --positions lists and number text. count_positions agrees with the list parse_positions builds.
#include "fuzz_support.hpp"

#include "cli/positions.hpp"
#include "pe/limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  const std::string_view text = text_of(data, size);
  // A small list limit: the fuzzer's ranges would otherwise allocate up to 10^7 positions a run.
  static const bool limited = (pe::set_limit("list=4096"), true);
  (void)limited;
  expect_clean([&] {
    const auto count = pecheck::count_positions(text);
    const auto list = pecheck::parse_positions(text);
    if (list.size() != count) broken("count_positions differs from parse_positions' size", text);
  });
  (void)pecheck::parse_finite_double(std::string(text));
  return 0;
}
