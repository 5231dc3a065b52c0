// The implementation's stderr, relayed to the gate's under one cap for the whole run (--stderr-budget-mib).
#pragma once
#include <cstdint>

namespace pe::gate::stderr_relay {

// Starts the relay, once per gate process (a later call changes nothing): a pipe whose write end
// every implementation process gets as its stderr (process::child), and a process that copies what
// comes through to the gate's stderr, up to `shown_bytes` in all, then one line saying that the rest
// is not shown, and drops the rest (still read, so a writer never blocks on a full pipe).
void start(std::uint64_t shown_bytes);
// The pipe's write end, for a child to take as its stderr; -1 before start().
int write_end();
// The pipe's read end, which a child closes; -1 before start().
int read_end();
// Bytes the implementation's processes have written to stderr in all, shown or dropped; call
// settle() first to count what is still in the pipe.
std::uint64_t bytes_written();
// Waits until what was written so far has been relayed or dropped (at most a second: the gate's own
// stderr may be slow to take it): after a process ended, its last lines come before the gate's next.
void settle();

}  // namespace pe::gate::stderr_relay
