// The golden tree a pecheck binary judges with: found from the executable's own location, never from the working directory.
#pragma once
#include <string>

namespace pecheck {

// The golden directory installed with this binary (PREFIX/share/pecheck/golden beside
// PREFIX/bin/pecheck), else the source tree's it was built from; input_error (exit 2) naming both
// places when neither holds a MANIFEST.json. The same answer from any working directory.
std::string tool_golden_dir();

}  // namespace pecheck
