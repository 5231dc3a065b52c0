// pecheck: the command line. Thin: parses arguments into a Spec and options, calls the library.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "cli/version.hpp"
#include "cli/vocabulary.hpp"
#include "pe/error.hpp"
#include "pe/limits.hpp"
#include "pe/parallel.hpp"

int main(int argc, char** argv) {
  CLI::App app{"pecheck: verification suite for transformer positional encodings"};
  app.require_subcommand(1);
  // --threads may come before or after the command's name (fallthrough: the commands pass it up).
  int threads = 0;
  app.add_option("--threads", threads, "threads for the fast binary64 paths (default: the core count)")->check(CLI::Range(1, 1024));
  // --limit NAME=N raises (or lowers) one of the limits every command checks before its work.
  std::vector<std::string> limits;
  std::vector<std::string> limit_docs;
  for (const auto& l : pe::limit_table()) limit_docs.push_back(fmt::format("{} ({}, default {})", l.name, l.what, l.default_value));
  app.add_option("--limit", limits, fmt::format("NAME=N: set a limit checked before work; repeatable. Limits: {}", fmt::join(limit_docs, "; ")))
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.fallthrough();
  app.set_version_flag("--version", std::string("pecheck ") + pecheck::version(), "print pecheck's version and exit");
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  for (auto add : {pecheck::add_list_command, pecheck::add_eval_command, pecheck::add_check_command, pecheck::add_golden_command, pecheck::add_gate_command,
                    pecheck::add_audit_command, pecheck::add_diagnose_command, pecheck::add_spec_command}) {
    auto run = add(app);
    commands.emplace_back(app.get_subcommands({}).back(), run);
  }
  pecheck::refuse_integer_overflow(app);
  // Arguments no option takes are kept, not refused by CLI11 ("The following arguments were not
  // expected: 0:3 --postions"): the deepest command chosen names the first and suggests the nearest.
  app.allow_extras();
  for (auto* sub : app.get_subcommands({})) {
    sub->allow_extras();
    for (auto* inner : sub->get_subcommands({})) inner->allow_extras();
  }
  // A first word that names no command gets a clearer line than CLI11's own.
  std::vector<std::string> names;
  for (const auto& [sub, run] : commands) names.push_back(sub->get_name());
  if (argc < 2) {
    fmt::print(stderr, "pecheck: a command is required (commands: {})\n", fmt::join(names, ", "));
    return 2;
  }
  if (argv[1][0] != '-' && std::find(names.begin(), names.end(), argv[1]) == names.end()) {
    fmt::print(stderr, "pecheck: unknown command '{}' (commands: {})\n", argv[1], fmt::join(names, ", "));
    return 2;
  }
  // The same for the second word of a command that has its own commands (pecheck golden ...).
  for (const auto& [sub, run] : commands) {
    if (sub->get_name() != argv[1]) continue;
    std::vector<std::string> inner;
    for (const auto* s : sub->get_subcommands({})) inner.push_back(s->get_name());
    if (inner.empty()) break;
    if (argc < 3 || (argv[2][0] != '-' && std::find(inner.begin(), inner.end(), argv[2]) == inner.end())) {
      fmt::print(stderr, "pecheck {}: {} (commands: {})\n", argv[1],
                 argc < 3 ? std::string("a command is required") : fmt::format("unknown command '{}'", argv[2]), fmt::join(inner, ", "));
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "pecheck: {}\n", pe::one_line(e.what()));
    return 2;
  }
  {
    const CLI::App* chosen = &app;
    for (bool deeper = true; deeper;) {
      deeper = false;
      for (const auto* sub : chosen->get_subcommands({}))
        if (sub->parsed()) chosen = sub, deeper = true;
    }
    std::vector<std::string> rest;
    for (const CLI::App* a = chosen; a != nullptr; a = a->get_parent())
      for (const auto& r : a->remaining()) rest.push_back(r);
    if (!rest.empty()) {
      fmt::print(stderr, "{}\n", pecheck::unknown_arguments_line(*chosen, rest));
      return 2;
    }
  }
  if (threads > 0) pe::set_worker_threads(threads);
  try {
    for (const auto& l : limits) pe::set_limit(l);
    for (const auto& [sub, run] : commands) {
      if (!sub->parsed()) continue;
      const int code = run();
      if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
        fmt::print(stderr, "pecheck: cannot write the output: {}\n", std::strerror(errno));
        return 1;
      }
      return code;
    }
  } catch (const pe::spec_error& e) {
    fmt::print(stderr, "pecheck: {}\n", pe::one_line(e.what()));
    return 2;
  } catch (const pe::input_error& e) {
    fmt::print(stderr, "pecheck: {}\n", pe::one_line(e.what()));
    return 2;
  } catch (const std::system_error& e) {  // fmt::print failing to write stdout
    fmt::print(stderr, "pecheck: cannot write the output: {}\n", e.code().message());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pecheck: internal error: {}\n", pe::one_line(e.what()));
    return 1;
  }
  return 1;
}
