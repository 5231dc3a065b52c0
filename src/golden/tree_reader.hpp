// A golden directory as verify, diff and export read it: MANIFEST.json, each file it lists (hashed and parsed), and the files it does not list.
#pragma once
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "golden/golden_file.hpp"
#include "golden/manifest.hpp"

namespace pe::golden {

// The bytes of a file; input_error "PATH: cannot be read".
std::string read_file(const std::filesystem::path& p);

struct tree_contents {
  manifest listed;                           // MANIFEST.json as parsed
  bool manifest_reformatted = false;         // its bytes are not to_text(listed)
  std::map<std::string, golden_file> files;  // the listed files that parse, by path
  std::set<std::string> flawed;              // paths with a problem found in reading: hash, case count, precision
  std::set<std::string> reformatted;         // paths whose bytes are not to_text of what they hold
};

// Throws input_error when MANIFEST.json is missing or malformed (the directory is not a golden
// tree). Every problem with a listed file, and every entry in the tree that is neither listed, nor
// a figure table, nor MANIFEST.json or README.md, goes to `problems`, one line each.
tree_contents read_tree(const std::filesystem::path& dir, std::vector<std::string>& problems);

}  // namespace pe::golden
