// `pecheck spec from-hf CONFIG.json`: the specs of a model config, one per distinct layer kind, as canonical text or JSON.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "convert/hf_config.hpp"
#include "convert/layer_specs.hpp"

namespace pecheck {

std::function<int()> add_spec_command(CLI::App& app) {
  struct spec_cli {
    std::string config;
    std::string format = "text";
  };
  auto o = std::make_shared<spec_cli>();
  auto* cmd = app.add_subcommand("spec", "the specs of a model's configuration");
  cmd->require_subcommand(1);
  auto* hf = cmd->add_subcommand("from-hf", "the specs of a Hugging Face config.json, one per distinct layer kind, each after a comment naming its layers");
  hf->add_option("config", o->config, "the config.json")->required();
  hf->add_option("--format", o->format, "text (canonical specs, default) or json (an array of {stack, layers, comment, notes, spec})")
      ->check(CLI::IsMember({"text", "json"}));
  return [o, hf] {
    if (!hf->parsed()) return 2;
    const auto specs = pe::convert::layer_specs(pe::convert::read_hf_config(read_text_file(o->config, o->config), o->config));
    if (o->format == "text") {
      fmt::print("{}", pe::convert::specs_text(specs));
      return 0;
    }
    // One entry per line: a layer list of a hundred layers stays one line.
    std::vector<std::string> entries;
    for (const auto& e : pe::convert::specs_json(specs)) entries.push_back(e.dump());
    fmt::print("[\n{}\n]\n", fmt::join(entries, ",\n"));
    return 0;
  };
}

}  // namespace pecheck
