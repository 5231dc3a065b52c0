// pecheck's version (project() in CMakeLists.txt), in a file of its own: the definition it needs would keep main.cpp out of its unity batch.
#include "cli/version.hpp"

namespace pecheck {

const char* version() { return PECHECK_VERSION; }

}  // namespace pecheck
