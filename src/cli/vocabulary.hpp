// One vocabulary across commands: old spellings kept with a deprecation line, and a misspelled option answered with the nearest one.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace pecheck {

// Adds `old_flag` to `cmd` as a hidden spelling of `new_flag`: it sets `target` as the new one does
// and prints "pecheck: --dir is deprecated; use --golden" on stderr (once per use), so scripts keep
// working while they move. --help lists the old spelling under "Deprecated" (a hidden option
// would lose its name in CLI11's errors: ": Value 0 not in range").
template <class T>
CLI::Option* add_deprecated_spelling(CLI::App& cmd, const std::string& old_flag, const std::string& new_flag, T& target) {
  return cmd
      .add_option_function<T>(old_flag,
                              [&target, old_flag, new_flag](const T& value) {
                                target = value;
                                std::fprintf(stderr, "pecheck: %s is deprecated; use %s\n", old_flag.c_str(), new_flag.c_str());
                              })
      ->group("Deprecated")
      ->description("use " + new_flag);
}

// The option of `known` nearest to `typed` in edit distance, when it is near enough to be a slip
// (at most 2 edits, and fewer than a third of its letters); "" otherwise.
std::string nearest_option(const std::string& typed, const std::vector<std::string>& known);

// The one line for arguments CLI11 left unparsed on command `cmd` (and its parents): "pecheck gate:
// unknown option '--postions'; did you mean '--positions'? (pecheck gate --help lists them)".
std::string unknown_arguments_line(const CLI::App& cmd, const std::vector<std::string>& rest);

}  // namespace pecheck
