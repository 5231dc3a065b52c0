// gate's and audit's --hf-config / --gguf: a model file in place of --spec, read into its specs.
#pragma once
#include <string>

#include <CLI/CLI.hpp>

#include "convert/layer_specs.hpp"

namespace pecheck {

struct model_source {
  std::string hf_config, gguf;
  bool given() const { return !hf_config.empty() || !gguf.empty(); }
  const std::string& file() const { return gguf.empty() ? hf_config : gguf; }
  const char* flag() const { return gguf.empty() ? "--hf-config" : "--gguf"; }
};

// The two options, each excluding `spec` and the other; help "VERB every spec of FILE HOW".
void add_model_source_flags(CLI::App& cmd, model_source& m, CLI::Option* spec, const std::string& verb, const std::string& how);

// The model's specs by layer kind (pe::convert's checked_specs of the file the flags name).
pe::convert::specs_to_check read_model_specs(const model_source& m);

}  // namespace pecheck
