// The sandbox's confinement of file writes and signals: a Landlock ruleset the worker puts on itself (see sandbox_parts.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "gate/sandbox_parts.hpp"

namespace pe::gate::sandbox::landlock {
namespace {

// Landlock's interface past what Debian 12's <linux/landlock.h> (Linux 6.1) declares; the values
// are the kernel's own (include/uapi/linux/landlock.h), fixed by its ABI.
constexpr std::uint64_t access_fs_truncate = 1ULL << 14;          // ABI 3, Linux 6.2
constexpr std::uint64_t scope_abstract_unix_socket = 1ULL << 0;  // ABI 6, Linux 6.12
constexpr std::uint64_t scope_signal = 1ULL << 1;                // ABI 6
struct ruleset_attr {
  std::uint64_t handled_access_fs = 0, handled_access_net = 0, scoped = 0;
};

// Every right that changes the file system (reading and executing stay free), as far as `abi` knows them.
std::uint64_t change_rights(int abi) {
  std::uint64_t r = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                    LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                    LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) r |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3) r |= access_fs_truncate;
  return r;
}
// Writing an existing file (opening it to write, truncating it): all a rule on a file may grant.
std::uint64_t write_rights(int abi) { return LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? access_fs_truncate : 0); }

// Grants `rights` at `path` (and beneath it, for a directory); a path that is not there is no error.
bool allow(int ruleset, const std::string& path, std::uint64_t rights) {
  const int fd = open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT || errno == EACCES;
  const landlock_path_beneath_attr rule{rights, fd};
  const bool added = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0;
  const int saved = errno;
  close(fd);
  errno = saved;
  return added;
}

// Devices whose writes change nothing outside the process: the null and random devices, the terminal.
constexpr const char* harmless_devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"};
// Device files a GPU runtime opens read-write: NVIDIA's (/dev/nvidia0, nvidiactl, nvidia-uvm, ...)
// by this prefix in /dev, and the DRM and AMD KFD ones.
constexpr const char* gpu_device_prefix = "nvidia";
constexpr const char* gpu_devices[] = {"/dev/dri", "/dev/kfd"};

}  // namespace

int abi(int& error) {
  const long v = syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  error = v < 0 ? errno : 0;
  return v < 0 ? 0 : static_cast<int>(v);
}

bool confine(const std::string& scratch, int abi) {
  ruleset_attr attr;
  attr.handled_access_fs = change_rights(abi);
  if (abi >= 6) attr.scoped = scope_signal | scope_abstract_unix_socket;
  // The kernel reads as much of the attribute as the size says: the first field only before ABI 4.
  const std::size_t size = abi >= 6 ? sizeof attr : sizeof attr.handled_access_fs;
  const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, size, 0));
  if (ruleset < 0) return false;
  bool ok = allow(ruleset, scratch, change_rights(abi));
  // Its own /proc files (the worker resets its memory peak and its OOM score there): /proc/self is
  // this process's directory once opened.
  ok = ok && allow(ruleset, "/proc/self", write_rights(abi));
  for (const char* device : harmless_devices) ok = ok && allow(ruleset, device, write_rights(abi));
  for (const char* device : gpu_devices) ok = ok && allow(ruleset, device, write_rights(abi));
  if (DIR* dev = opendir("/dev")) {
    for (dirent* e; ok && (e = readdir(dev)) != nullptr;)
      if (std::strncmp(e->d_name, gpu_device_prefix, std::strlen(gpu_device_prefix)) == 0)
        ok = allow(ruleset, std::string("/dev/") + e->d_name, write_rights(abi));
    closedir(dev);
  }
  ok = ok && syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
  const int saved = errno;
  close(ruleset);
  errno = saved;
  return ok;
}

}  // namespace pe::gate::sandbox::landlock
