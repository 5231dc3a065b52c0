// Fuzz target: the Hugging Face config reader (spec from-hf). An accepted config gives specs whose text reads back to itself, covering every layer.
#include "fuzz_support.hpp"

#include <vector>

#include "convert/hf_config.hpp"
#include "convert/layer_specs.hpp"
#include "pe/limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  // A few thousand layers reach every path: held there should the default of --limit layers rise.
  static const bool limited = (pe::set_limit("layers=4096"), true);
  (void)limited;
  expect_clean([&] {
    const auto model = pe::convert::read_hf_config(text_of(data, size), "fuzz.json");
    const auto specs = pe::convert::layer_specs(model);
    (void)pe::convert::specs_text(specs);
    (void)pe::convert::specs_json(specs).dump();
    (void)pe::convert::checked_specs(specs);
    for (const auto& s : specs) {
      // Each spec's canonical text and its JSON twin read back to the same spec.
      const std::string text = s.spec.text();
      if (pe::parse_spec(text).text() != text) broken("spec text does not read back to itself", text);
      if (pe::parse_spec_json(s.spec.json()).text() != text) broken("JSON twin does not read back to the spec", text);
      if (s.comment.find('\n') != std::string::npos) broken("comment with a newline", s.comment);
    }
    // Every layer of every stack is in an entry (a T5 decoder layer is in two: its self- and its
    // cross-attention), each entry's layers ascending and inside the stack.
    for (const auto& stack : model.stacks) {
      std::vector<char> seen(static_cast<std::size_t>(stack.layers), 0);
      for (const auto& s : specs) {
        if (s.stack != stack.name) continue;
        for (std::size_t i = 0; i < s.layers.size(); ++i) {
          const auto l = s.layers[i];
          if (l < 0 || l >= stack.layers) broken("layer outside its stack", s.comment);
          if (i > 0 && l <= s.layers[i - 1]) broken("layers not ascending", s.comment);
          seen[static_cast<std::size_t>(l)] = 1;
        }
      }
      for (const auto in : seen)
        if (!in) broken("layer in no entry", stack.name);
    }
  });
  return 0;
}
