// value_block's text (see value_block.hpp).
#include "cli/value_block.hpp"

#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

namespace pecheck {

void value_block::append_text(std::string& out, std::size_t k) const {
  if (!decimals.empty()) {
    out += decimals[k];
    return;
  }
  // pe::to_decimal's "{:.17g}", compiled and written in place: no format string parsed and no
  // string made per value (value_block_test checks the two agree, bit patterns of every kind).
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{:.17g}"), binary64[k]);
}

}  // namespace pecheck
