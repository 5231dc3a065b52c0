// Reading a golden directory against its manifest (see tree_reader.hpp).
#include "golden/tree_reader.hpp"

#include <fmt/format.h>

#include "golden/figures.hpp"
#include "pe/bounded_file.hpp"
#include "pe/error.hpp"

namespace pe::golden {
namespace fs = std::filesystem;
namespace {

// A manifest path must be a plain relative path inside the tree: no "..", not absolute, a .json file.
bool confined(const std::string& path) {
  if (path.empty() || path[0] == '/' || path.size() < 6 || path.substr(path.size() - 5) != ".json") return false;
  for (const auto& part : fs::path(path)) {
    if (part == ".." || part == "." || part.empty()) return false;
  }
  return true;
}

}  // namespace

std::string read_file(const fs::path& p) { return read_bounded_file(p.string(), p.string()); }

tree_contents read_tree(const fs::path& dir, std::vector<std::string>& problems) {
  tree_contents tree;
  const fs::path manifest_path = dir / "MANIFEST.json";
  const std::string manifest_text = read_file(manifest_path);
  tree.listed = parse_manifest(manifest_text, manifest_path.string());
  const manifest& m = tree.listed;
  tree.manifest_reformatted = manifest_text != to_text(m);
  if (m.precision_bits != 256) problems.push_back(fmt::format("{}: precision_bits {} is not 256", manifest_path.string(), m.precision_bits));
  std::set<std::string> listed;
  for (const auto& e : m.files) {
    const fs::path p = dir / e.path;
    if (!confined(e.path)) {
      problems.push_back(fmt::format("{}: path '{}' is not a .json file inside the tree", manifest_path.string(), e.path));
      continue;
    }
    if (!listed.insert(e.path).second) {
      problems.push_back(fmt::format("{}: {} is listed twice", manifest_path.string(), e.path));
      continue;
    }
    const auto flaw = [&](const std::string& line) {
      problems.push_back(line);
      tree.flawed.insert(e.path);
    };
    try {
      // symlink_status: regen writes plain files and folders, and a link's target could change
      // under a matching manifest entry's name.
      for (fs::path within = dir, rest = fs::path(e.path).parent_path(); const auto& part : rest) {
        within /= part;
        if (fs::is_symlink(fs::symlink_status(within))) {
          throw input_error(fmt::format("{}: reached through the symbolic link {}: golden folders are plain folders", p.string(), within.string()));
        }
      }
      const auto status = fs::symlink_status(p);
      if (!fs::exists(status)) throw input_error(fmt::format("{}: listed in MANIFEST.json, and missing", p.string()));
      if (fs::is_symlink(status)) throw input_error(fmt::format("{}: a symbolic link: golden files are plain files, as regen writes them", p.string()));
      if (!fs::is_regular_file(status)) throw input_error(fmt::format("{}: is not a regular file", p.string()));
      const std::string bytes = read_file(p);
      if (sha256_hex(bytes) != e.sha256) {
        flaw(fmt::format("{}: SHA-256 {} does not match MANIFEST.json ({})", p.string(), sha256_hex(bytes), e.sha256));
      }
      auto f = parse_golden(bytes, p.string());
      if (static_cast<int>(f.cases.size()) != e.cases) flaw(fmt::format("{}: {} cases, MANIFEST.json says {}", p.string(), f.cases.size(), e.cases));
      if (f.precision_bits != m.precision_bits) {
        flaw(fmt::format("{}: precision_bits {} differs from MANIFEST.json's {}", p.string(), f.precision_bits, m.precision_bits));
      }
      if (bytes != to_text(f)) tree.reformatted.insert(e.path);
      tree.files.emplace(e.path, std::move(f));
    } catch (const input_error& err) {
      flaw(err.what());
    }
  }
  // Whatever else is in the tree: a file added, renamed or left behind is a change verify must name.
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_directory() && !it->is_symlink()) continue;
    const std::string rel = fs::relative(it->path(), dir).string();
    if (rel != "MANIFEST.json" && rel != "README.md" && rel != decay_table_path && !listed.count(rel)) {
      problems.push_back(fmt::format("{}: {}not in MANIFEST.json", it->path().string(), it->is_symlink() ? "a symbolic link, " : ""));
    }
  }
  if (ec) problems.push_back(fmt::format("{}: cannot be listed: {}", dir.string(), ec.message()));
  return tree;
}

}  // namespace pe::golden
