// golden/MANIFEST.json: every golden file with its SHA-256, the generator, the MPFR version and the precision.
#pragma once
#include <string>
#include <vector>

namespace pe::golden {

struct manifest_entry {
  std::string path;    // relative to the golden directory
  std::string sha256;  // lowercase hex of the file's bytes
  int cases = 0;
};

struct manifest {
  std::string generator, mpfr;  // the generator and the MPFR library version
  unsigned precision_bits = 256;
  std::vector<manifest_entry> files;
};

inline constexpr const char* manifest_format = "pecheck-golden-manifest/1";

std::string sha256_hex(const std::string& bytes);
std::string to_text(const manifest& m);
manifest parse_manifest(const std::string& text, const std::string& where);
std::string mpfr_library_version();

}  // namespace pe::golden
