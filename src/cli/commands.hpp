// The pecheck subcommands: each adds itself to the CLI11 app and runs when chosen.
#pragma once
#include <CLI/CLI.hpp>
#include <functional>

namespace pecheck {

// Registers the subcommand; the returned function runs it (after parsing) and gives the exit code.
std::function<int()> add_list_command(CLI::App& app);
std::function<int()> add_eval_command(CLI::App& app);
std::function<int()> add_check_command(CLI::App& app);
std::function<int()> add_golden_command(CLI::App& app);
std::function<int()> add_gate_command(CLI::App& app);
std::function<int()> add_audit_command(CLI::App& app);
std::function<int()> add_diagnose_command(CLI::App& app);
std::function<int()> add_spec_command(CLI::App& app);

}  // namespace pecheck
