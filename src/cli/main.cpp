// pecheck: the command line. Thin: parses arguments into a Spec and options, calls the library.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "pe/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"pecheck: verification suite for transformer positional encodings"};
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  for (auto add : {pecheck::add_list_command, pecheck::add_eval_command}) {
    auto run = add(app);
    commands.emplace_back(app.get_subcommands({}).back(), run);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    fmt::print(stderr, "pecheck: {}\n", e.what());
    return 2;
  }
  try {
    for (const auto& [sub, run] : commands)
      if (sub->parsed()) return run();
  } catch (const pe::spec_error& e) {
    fmt::print(stderr, "pecheck: {}\n", e.what());
    return 2;
  } catch (const pe::input_error& e) {
    fmt::print(stderr, "pecheck: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pecheck: internal error: {}\n", e.what());
    return 1;
  }
  return 1;
}
