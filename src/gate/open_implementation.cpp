// The implementation that --impl, --impl-cmd or --impl-reference names (see implementation.hpp).
#include <charconv>
#include <optional>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "gate/implementation.hpp"
#include "gate/sandbox.hpp"
#include "gate/stderr_relay.hpp"
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

namespace {

// --address-space-gib's value in bytes (no_address_space_limit for "unlimited"), or nullopt.
std::optional<std::size_t> address_space_of(const std::string& gib) {
  if (gib == "unlimited") return no_address_space_limit;
  std::size_t n = 0;
  const auto [end, error] = std::from_chars(gib.data(), gib.data() + gib.size(), n);
  if (error != std::errc() || end != gib.data() + gib.size() || n < 1 || n > (std::size_t{1} << 20)) return std::nullopt;
  return n << 30;
}

}  // namespace

std::string address_space_gib_problem(const std::string& gib) {
  return address_space_of(gib) ? "" : fmt::format("'{}' is not a whole number of GiB from 1 to 1048576, or unlimited", gib);
}

std::size_t implementation_flags::address_space_bytes() const {
  if (const auto bytes = address_space_of(address_space_gib)) return *bytes;
  throw input_error("--address-space-gib " + address_space_gib_problem(address_space_gib));
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
  sandbox::configure(sandbox::parse_mode(f.sandbox));
  stderr_relay::start(f.stderr_budget_mib << 20);
  if (!f.impl_cmd.empty()) return start_wire(f.impl_cmd, f.timeout_ms, f.start_timeout_ms, f.memory_limit_mib << 20);
  return load_plugin(f.impl, f.timeout_ms, f.start_timeout_ms, isolation, f.memory_limit_mib << 20, f.address_space_bytes());
}

}  // namespace pe::gate
