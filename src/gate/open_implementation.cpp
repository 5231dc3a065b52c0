// The implementation that --impl, --impl-cmd or --impl-reference names (see implementation.hpp).
#include <fmt/format.h>

#include "gate/implementation.hpp"
#include "pe/error.hpp"
#include "properties/runner.hpp"

namespace pe::gate {

std::string implementation_flags::text() const {
  if (reference) return "--impl-reference";
  if (!impl_cmd.empty()) return "--impl-cmd " + props::shell_quote(impl_cmd);
  return "--impl " + props::shell_quote(impl) + (parse_isolation(isolation) == plugin_isolation::call ? " --isolation call" : "");
}

std::unique_ptr<implementation> open_implementation(const implementation_flags& f, const std::string& command) {
  if (!f.impl.empty() + !f.impl_cmd.empty() + f.reference != 1) {
    throw input_error(fmt::format("{}: give one of --impl LIB, --impl-cmd COMMAND, --impl-reference", command));
  }
  const plugin_isolation isolation = parse_isolation(f.isolation);
  if (f.reference) return reference_implementation();
  if (!f.impl_cmd.empty()) return start_wire(f.impl_cmd, f.timeout_ms, f.start_timeout_ms);
  return load_plugin(f.impl, f.timeout_ms, f.start_timeout_ms, isolation, f.memory_limit_mib << 20);
}

}  // namespace pe::gate
