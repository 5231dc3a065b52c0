// `pecheck spec from-hf CONFIG.json` and `pecheck spec from-gguf FILE.gguf`: the specs of a model, one per distinct layer kind, as canonical text or JSON.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command_support.hpp"
#include "cli/commands.hpp"
#include "convert/gguf_model.hpp"
#include "convert/hf_config.hpp"
#include "convert/layer_specs.hpp"

namespace pecheck {
namespace {

int print_specs(const pe::convert::model_positions& model, const std::string& format) {
  const auto specs = pe::convert::layer_specs(model);
  if (format == "text") {
    fmt::print("{}", pe::convert::specs_text(specs));
    return 0;
  }
  // One entry per line: a layer list of a hundred layers stays one line.
  std::vector<std::string> entries;
  for (const auto& e : pe::convert::specs_json(specs)) entries.push_back(e.dump());
  fmt::print("[\n{}\n]\n", fmt::join(entries, ",\n"));
  return 0;
}

void add_format(CLI::App& cmd, std::string& format) {
  cmd.add_option("--format", format, "text (canonical specs, default) or json (an array of {stack, layers, comment, notes, spec})")
      ->check(CLI::IsMember({"text", "json"}));
}

}  // namespace

std::function<int()> add_spec_command(CLI::App& app) {
  struct spec_cli {
    std::string config, gguf;
    std::string format = "text";
  };
  auto o = std::make_shared<spec_cli>();
  auto* cmd = app.add_subcommand("spec", "the specs of a model's configuration");
  cmd->require_subcommand(1);
  auto* hf = cmd->add_subcommand("from-hf", "the specs of a Hugging Face config.json, one per distinct layer kind, each after a comment naming its layers");
  hf->add_option("config", o->config, "the config.json")->required();
  add_format(*hf, o->format);
  auto* gguf = cmd->add_subcommand("from-gguf", "the specs of a GGUF model file, from its metadata alone (the tensors are never read), as llama.cpp's kernel rotates the file's own weights");
  gguf->add_option("file", o->gguf, "the .gguf file")->required();
  add_format(*gguf, o->format);
  return [o, hf, gguf] {
    if (hf->parsed()) return print_specs(pe::convert::read_hf_config(read_text_file(o->config, o->config), o->config), o->format);
    if (gguf->parsed()) return print_specs(pe::convert::read_gguf_file(o->gguf), o->format);
    return 2;
  };
}

}  // namespace pecheck
