// pecheck's version, as `pecheck --version` prints it.
#pragma once

namespace pecheck {

// "0.1.0": the VERSION of project() in CMakeLists.txt.
const char* version();

}  // namespace pecheck
