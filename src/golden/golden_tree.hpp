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

// Every problem found, one line each (empty when the tree verifies): manifest hashes, malformed
// files, files that no case set defines or sets with no file, and any value that drifts more
// than 1e-35 relative from its recomputation at the stored precision or 64 bits more.
inline constexpr double verify_relative_tolerance = 1e-35;
// `only` limits the recomputation to the files whose path matches (hashes are always checked).
std::vector<std::string> verify(const std::filesystem::path& dir, const std::optional<std::regex>& only = std::nullopt);

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
