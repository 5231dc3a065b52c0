// Files read whole, bounded: refused at once when not a regular file, or larger than the limit file_bytes.
#pragma once
#include <string>

namespace pe {

// Throws input_error "LABEL: ..." (exit 2; LABEL names the file, as the caller's messages do) unless PATH names a regular file (after links):
// a FIFO would block open() until a writer comes, a device such as /dev/zero never ends, a
// directory has no bytes. stat() decides it, which never blocks.
void require_regular_file(const std::string& path, const std::string& label);

// The whole file: require_regular_file, then its size checked against limit::file_bytes before a
// byte is read (limit_error naming the limit), and at most that many bytes read (a file that grows
// while it is read is refused too).
std::string read_bounded_file(const std::string& path, const std::string& label);

}  // namespace pe
