// Resident memory of a process and its descendants, read from /proc: the wire's per-call memory watch.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <vector>

namespace pe::gate {

// `root` and every live descendant, found through /proc/PID/task/TID/children (Linux 3.5 on, with
// CONFIG_PROC_CHILDREN; without it, `root` alone). A descendant that was re-parented away (a
// daemon) is not found; it is still in the process group, killed with it.
std::vector<pid_t> process_tree(pid_t root);

struct tree_memory {
  std::uint64_t resident_bytes = 0;  // VmRSS, summed
  std::uint64_t peak_bytes = 0;      // VmHWM, summed: each process's own peak since its last reset
};
// Read from /proc/PID/status; a process that ended meanwhile counts 0.
tree_memory memory_of(const std::vector<pid_t>& processes);

// Resets each process's peak to its resident set now (clear_refs 5, Linux 4.0 on), so that a later
// peak is a call's own. Processes that refuse keep their lifetime peak: the peak then overstates.
void reset_peaks(const std::vector<pid_t>& processes);

// One call's memory watch over a process tree: how far its resident memory has grown past what it
// held when the watch began (peaks reset then), against an allowance in bytes.
class tree_memory_watch {
 public:
  tree_memory_watch(pid_t root, std::uint64_t allowance);
  // Samples the tree's resident memory now (the tree itself is walked again every tenth sample:
  // a walk reads a file per thread). True once it is past the allowance.
  bool past_now();
  // The tree's summed peaks since the watch began past the allowance: a spike between two samples.
  // Each process's own peak is summed, which overstates a tree whose members peaked at different times.
  bool peak_past() const;

 private:
  bool past(std::uint64_t bytes) const { return bytes > baseline_ && bytes - baseline_ > allowance_; }
  pid_t root_;
  std::uint64_t allowance_, baseline_ = 0;
  std::vector<pid_t> tree_;
  int samples_ = 0;
};

}  // namespace pe::gate
