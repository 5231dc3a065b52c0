// The implementation that --impl, --impl-cmd or --impl-reference names (see implementation.hpp).
#include <exception>
#include <string>

#include <fmt/format.h>

#include "gate/implementation.hpp"
#include "pe/error.hpp"
#include "properties/runner.hpp"

namespace pe::gate {

std::string implementation_flags::text() const {
  if (reference) return "--impl-reference";
  if (!impl_cmd.empty()) return "--impl-cmd " + props::shell_quote(impl_cmd);
  const bool own_address_space = address_space_bytes() != default_call_address_space_bytes;
  return "--impl " + props::shell_quote(impl) + (parse_isolation(isolation) == plugin_isolation::call ? " --isolation call" : "") +
         (own_address_space ? " --address-space-gib " + address_space_gib : "");
}

std::size_t implementation_flags::address_space_bytes() const {
  if (address_space_gib == "unlimited") return no_address_space_limit;
  std::size_t used = 0;
  unsigned long gib = 0;
  try {
    gib = std::stoul(address_space_gib, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != address_space_gib.size() || gib < 1 || gib > (1ul << 20)) {
    throw input_error(fmt::format("--address-space-gib '{}' is not a whole number of GiB from 1 to 1048576, or unlimited", address_space_gib));
  }
  return static_cast<std::size_t>(gib) << 30;
}

std::string out_of_memory_message(std::size_t budget, std::size_t io_bytes) {
  const std::string io = io_bytes ? fmt::format(" (beyond twice its {} bytes of inputs and outputs)", io_bytes) : "";
  return fmt::format("out of memory: the call grew past {} MiB of resident memory, the gate's limit per call{}", budget >> 20, io);
}

std::unique_ptr<implementation> open_implementation(const implementation_flags& f, const std::string& command) {
  if (!f.impl.empty() + !f.impl_cmd.empty() + f.reference != 1) {
    throw input_error(fmt::format("{}: give one of --impl LIB, --impl-cmd COMMAND, --impl-reference", command));
  }
  const plugin_isolation isolation = parse_isolation(f.isolation);
  if (f.reference) return reference_implementation();
  if (!f.impl_cmd.empty()) return start_wire(f.impl_cmd, f.timeout_ms, f.start_timeout_ms, f.memory_limit_mib << 20);
  return load_plugin(f.impl, f.timeout_ms, f.start_timeout_ms, isolation, f.memory_limit_mib << 20, f.address_space_bytes());
}

}  // namespace pe::gate
