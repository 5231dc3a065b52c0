// Fuzz target: the .npy reader, and its round trip through the project's writer: an accepted file's
// values, written again as the same dtype's .npy (f8, f4, i8), read back bit for bit.
#include "fuzz_support.hpp"

#include <cmath>
#include <cstring>

#include "golden/npy.hpp"
#include "golden/npy_reader.hpp"
#include "pe/limits.hpp"

namespace {

// Bit-equal, or both NaN (float -> double -> float keeps a NaN a NaN, not its payload).
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  static const bool limited = (pe::set_limit("input_values=65536"), true);
  (void)limited;
  expect_clean([&] {
    const auto a = pe::golden::read_npy(text_of(data, size), "fuzz.npy");
    const std::uint64_t n = pe::saturating_product(a.shape);
    if ((a.is_real() ? a.reals.size() : a.integers.size()) != n) broken("values != shape's product", a.descr);
    if (a.descr == "<f2" || a.descr == "<i4") return;  // the writer writes f8, f4 and i8
    const std::string again = a.is_real() ? pe::golden::npy_bytes(a.reals, a.shape, a.descr == "<f4") : pe::golden::npy_bytes(a.integers, a.shape);
    const auto b = pe::golden::read_npy(again, "rewritten.npy");
    if (b.descr != a.descr || b.shape != a.shape || b.integers != a.integers || b.reals.size() != a.reals.size()) broken("round trip", a.descr);
    for (std::size_t k = 0; k < a.reals.size(); ++k)
      if (!same(a.reals[k], b.reals[k])) broken("round trip value", a.descr);
  });
  return 0;
}
