// What the gate and a plugin's worker process share: the control block, the layout of a call's
// memory, and the worker's body (plugin_worker.cpp), which loads the plugin once and serves calls.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gate/implementation.hpp"

namespace pe::gate::worker {

// How far the worker got, so an exit or a signal can say where it happened.
enum stage : std::int32_t { started, loading, loaded, in_version, in_name, ready, preparing, running, returned, failed };
std::string_view where(std::int32_t s);

// No valid pe_status: a call that never returns leaves it there.
constexpr std::int32_t status_sentinel = 0x5e771e;
constexpr std::size_t message_bytes = 1024;
// A write this far outside a call's memory still lands on PROT_NONE pages (reserved address space
// only: no memory behind it).
constexpr std::size_t far_guard_bytes = std::size_t{64} << 20;
constexpr unsigned char guard_value = 0xA5;

// What the worker reports to the gate: shared memory mapped before the fork (the same address in
// both), read-only to the plugin while it runs.
struct control_block {
  std::int32_t stage;
  std::int32_t status;  // pe_impl_run's return, status_sentinel until it returns
  std::int32_t abi_version;
  std::int32_t fault_signal;  // set by the worker's fault handler
  std::int32_t fault_access;  // 1 write, 0 read, -1 unknown
  std::int32_t left_processes;  // the call left a process (running or not) behind
  std::int32_t ended_in_place;  // and the worker killed and reaped every one of them: it can serve on
  std::int32_t single_use;      // the peak resident set cannot be reset: one call per worker
  std::uint64_t fault_address;
  std::uint64_t region_base;              // where the worker reserved the current call's memory
  std::uint64_t baseline_resident_pages;  // resident set when the call (or, single use, the worker) started; 0 before
  std::uint64_t children_peak_pages;      // the largest resident set of a child the call reaped, or 0
  std::uint64_t name_length;              // strnlen(name, name_limit + 1), or ~0 for NULL
  // The gate numbers its calls here, and the worker copies the number once the call returned, just
  // before its answer byte: a byte on the channel without it is the plugin's, not an answer.
  std::uint64_t call_number, answered;
  char name[plugin_name_limit + 1];
  char error[512];
};

// One stretch of a call's memory: a tensor, the message buffer, or the request (for the worker
// alone). `bytes` used, `room` up to its PROT_NONE guard page.
struct span {
  std::string what;
  std::size_t offset, bytes, room;
  bool read_only;  // an input: the plugin may not write it
};

// A call's memory, a file shared by the gate and the worker: [request | guard | message | guard |
// input | guard | ... | output | guard]. Every span starts a page (so it is 64-byte aligned).
struct call_layout {
  std::vector<span> spans;  // the request, the message buffer, the inputs, the outputs
  std::size_t inputs = 0, bytes = 0;
  static call_layout of(std::size_t request_bytes, const std::vector<io_tensor>& inputs, const std::vector<io_tensor>& outputs);
  const span& message() const { return spans[1]; }
  const span& input(std::size_t k) const { return spans[2 + k]; }
  const span& output(std::size_t k) const { return spans[2 + inputs + k]; }
};

std::size_t page_size();
std::size_t whole_pages(std::size_t bytes);

// The worker's body: enters the child (stdout to stderr, the fault handler, the address-space cap:
// `address_space` bytes of growth per call, or none for no_address_space_limit), loads the plugin,
// reads its version and name, writes one byte on `channel`, then serves each byte it reads there
// as a call laid out in `memory` (a memfd), answering with one byte. Never returns.
[[noreturn]] void serve(const std::string& path, control_block& control, int channel, int memory, std::size_t address_space);

}  // namespace pe::gate::worker
