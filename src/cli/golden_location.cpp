// The golden tree of this binary (see golden_location.hpp).
#include "cli/golden_location.hpp"

#include <filesystem>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "pe/error.hpp"

namespace pecheck {

std::string tool_golden_dir() {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> places;
  // The executable itself, links resolved: a symlink to an installed pecheck finds that install's tree.
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) places.push_back((exe.parent_path() / PECHECK_BIN_TO_GOLDEN).lexically_normal());
  places.emplace_back(PECHECK_SOURCE_GOLDEN);
  for (const auto& place : places)
    if (fs::is_regular_file(place / "MANIFEST.json", ec)) return place.string();
  throw pe::input_error(fmt::format("no golden tree beside this pecheck ({}) nor in the source tree it was built from ({}): "
                                    "pass --golden DIR, or --golden-scope none to run without golden values",
                                    places.front().string(), places.back().string()));
}

}  // namespace pecheck
