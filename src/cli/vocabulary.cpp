// Deprecated spellings and the nearest-option suggestion (see vocabulary.hpp).
#include "cli/vocabulary.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace pecheck {

namespace {
// Levenshtein distance: insertions, deletions and substitutions, one each.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// Every long option name `cmd` and its parents take ("--positions"), hidden spellings included.
std::vector<std::string> long_options(const CLI::App& cmd) {
  std::vector<std::string> out;
  for (const CLI::App* app = &cmd; app != nullptr; app = app->get_parent())
    for (const CLI::Option* option : app->get_options())
      for (const auto& name : option->get_lnames()) out.push_back("--" + name);
  return out;
}

// "pecheck gate" for the gate command, "pecheck golden regen" for a nested one.
std::string command_path(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::App* app = &cmd; app->get_parent() != nullptr; app = app->get_parent()) names.insert(names.begin(), app->get_name());
  return fmt::format("pecheck{}{}", names.empty() ? "" : " ", fmt::join(names, " "));
}
}  // namespace

std::string nearest_option(const std::string& typed, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = 3;  // more than 2 edits is no slip
  for (const auto& k : known) {
    const std::size_t d = edit_distance(typed, k);
    if (d < best_distance && 3 * d < k.size() - 2) best = k, best_distance = d;  // "--" is no letter of it
  }
  return best;
}

std::string unknown_arguments_line(const CLI::App& cmd, const std::vector<std::string>& rest) {
  const std::string where = command_path(cmd);
  // The first option among them is the likely slip (its value follows it); else the first word.
  const auto flag = std::find_if(rest.begin(), rest.end(), [](const std::string& a) { return a.size() > 1 && a[0] == '-'; });
  if (flag == rest.end()) return fmt::format("{}: unexpected argument '{}' ({} --help says what it takes)", where, rest.front(), where);
  const std::string typed = flag->substr(0, flag->find('='));
  const std::string near = nearest_option(typed, long_options(cmd));
  return fmt::format("{}: unknown option '{}'{} ({} --help lists them)", where, typed, near.empty() ? "" : fmt::format("; did you mean '{}'?", near), where);
}

}  // namespace pecheck
