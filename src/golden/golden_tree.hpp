// The golden directory as a whole: regen (atomic, deterministic), verify, diff and export.
#pragma once
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace pe::golden {

// Throws input_error "FLAG 'TEXT': no golden file matches ..." when `only` selects none of the files
// regen writes (the case sets' and the figures'): a pattern that selects nothing would otherwise
// regenerate or verify nothing and say all is well.
void require_selection(const std::regex& only, const std::string& flag_text);

// Recomputes the sets whose path matches `only` (all when absent) and rewrites them and
// MANIFEST.json. Everything is computed before anything is written; each file goes to a
// temporary name and is renamed. Returns the paths written.
std::vector<std::string> regen(const std::filesystem::path& dir, const std::optional<std::regex>& only);

// Every problem found, one line each (none when the tree verifies): a hash, case count or precision
// that does not match MANIFEST.json, a malformed file, a file in the tree that the manifest does
// not list or a listed one that no case set defines (or a set with no file), a case id, input or
// comment that is not the definitions', and any value that is not its recomputation at the stored
// precision to the last digit, or drifts more than 1e-35 relative from it at 64 bits more. Notes,
// which do not fail: a file (or MANIFEST.json) whose values are right but whose bytes are not
// regen's layout of them, and a generator or MPFR that is not this build's (provenance.hpp).
inline constexpr double verify_relative_tolerance = 1e-35;
struct verify_report {
  std::vector<std::string> problems, notes;
};
// `only` limits the recomputation to the files whose path matches (hashes and the set of files: all).
verify_report verify(const std::filesystem::path& dir, const std::optional<std::regex>& only = std::nullopt);

// What changed between two golden trees, case by case, with the largest relative change.
struct diff_report {
  std::vector<std::string> lines;
  bool differs = false;
};
diff_report diff(const std::filesystem::path& a, const std::filesystem::path& b);

// The same cases rounded correctly to f32 or f64 (positions stay int64): .npy files plus
// index.json, or one JSON file per golden file. Returns the number of tensors written.
int export_tree(const std::filesystem::path& dir, const std::string& format, const std::string& dtype,
                const std::filesystem::path& out);

}  // namespace pe::golden
