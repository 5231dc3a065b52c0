// gate's and audit's model-file flags (see model_source.hpp).
#include "cli/model_source.hpp"

#include "cli/command_support.hpp"
#include "convert/gguf_model.hpp"
#include "convert/hf_config.hpp"

namespace pecheck {

void add_model_source_flags(CLI::App& cmd, model_source& m, CLI::Option* spec, const std::string& verb, const std::string& how) {
  auto* hf = cmd.add_option("--hf-config", m.hf_config, verb + " every spec of a Hugging Face config.json " + how + " (pecheck spec from-hf prints them)")
                 ->excludes(spec);
  cmd.add_option("--gguf", m.gguf, verb + " every spec of a GGUF model file's metadata " + how + " (pecheck spec from-gguf prints them)")
      ->excludes(spec)
      ->excludes(hf);
}

pe::convert::specs_to_check read_model_specs(const model_source& m) {
  const std::string& file = m.file();
  return pe::convert::checked_specs(pe::convert::layer_specs(
      m.gguf.empty() ? pe::convert::read_hf_config(read_text_file(file, "--hf-config"), file) : pe::convert::read_gguf_file(file)));
}

}  // namespace pecheck
