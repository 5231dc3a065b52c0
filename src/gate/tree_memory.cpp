// Resident memory of a process tree from /proc (see tree_memory.hpp).
#include "gate/tree_memory.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

namespace pe::gate {
namespace {

// The children of every thread of `pid` (a thread that forks is the child's parent, not the leader).
void add_children(pid_t pid, std::vector<pid_t>& out) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(tasks.c_str());
  if (!dir) return;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream children(tasks + "/" + e->d_name + "/children");
    pid_t child = 0;
    while (children >> child) out.push_back(child);
  }
  closedir(dir);
}

// The kB value of `key` (e.g. "VmRSS:") in a status text, in bytes; 0 when absent.
std::uint64_t status_bytes(const std::string& status, const char* key) {
  const auto at = status.find(key);
  unsigned long long kib = 0;
  if (at != std::string::npos) std::sscanf(status.c_str() + at + std::strlen(key), "%llu", &kib);
  return static_cast<std::uint64_t>(kib) * 1024;
}

}  // namespace

std::vector<pid_t> process_tree(pid_t root) {
  std::vector<pid_t> tree{root};
  // Breadth first; the bound stops a cycle that a pid reused mid-walk could make.
  for (std::size_t i = 0; i < tree.size() && tree.size() < 4096; ++i) add_children(tree[i], tree);
  return tree;
}

tree_memory memory_of(const std::vector<pid_t>& processes) {
  tree_memory m;
  for (const pid_t p : processes) {
    std::ifstream file("/proc/" + std::to_string(p) + "/status");
    std::stringstream text;
    text << file.rdbuf();
    const std::string status = text.str();
    m.resident_bytes += status_bytes(status, "VmRSS:");
    m.peak_bytes += status_bytes(status, "VmHWM:");
  }
  return m;
}

void reset_peaks(const std::vector<pid_t>& processes) {
  for (const pid_t p : processes) {
    const std::string path = "/proc/" + std::to_string(p) + "/clear_refs";
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    [[maybe_unused]] const ssize_t n = write(fd, "5", 1);
    close(fd);
  }
}

tree_memory_watch::tree_memory_watch(pid_t root, std::uint64_t allowance) : root_(root), allowance_(allowance), tree_(process_tree(root)) {
  reset_peaks(tree_);
  baseline_ = memory_of(tree_).resident_bytes;
}

bool tree_memory_watch::past_now() {
  if (++samples_ % 10 == 0) tree_ = process_tree(root_);
  return past(memory_of(tree_).resident_bytes);
}

bool tree_memory_watch::peak_past() const { return past(memory_of(process_tree(root_)).peak_bytes); }

}  // namespace pe::gate
