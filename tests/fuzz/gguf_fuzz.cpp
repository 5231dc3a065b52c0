// Fuzz target: the GGUF metadata reader (spec from-gguf). Any bytes are a model or one clean error; an accepted model's specs read back to themselves.
#include "fuzz_support.hpp"

#include <sstream>
#include <vector>

#include "convert/gguf_model.hpp"
#include "convert/layer_specs.hpp"
#include "pe/limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  // A few thousand layers reach every path: held there should the default of --limit layers rise.
  static const bool limited = (pe::set_limit("layers=4096"), true);
  (void)limited;
  expect_clean([&] {
    std::istringstream in(std::string(text_of(data, size)));
    const auto model = pe::convert::read_gguf(in, size, "fuzz.gguf");
    // One stack, its layers split among non-empty kinds (gemma3: sliding and global; llama4: rope
    // and nope): every layer in exactly one kind.
    if (model.stacks.size() != 1 || model.kinds.empty()) broken("not one stack with kinds", model.family);
    std::vector<int> owners(static_cast<std::size_t>(model.stacks[0].layers), 0);
    for (const auto& kind : model.kinds) {
      if (kind.layers.empty()) broken("a kind with no layers", model.family);
      for (const std::int64_t layer : kind.layers) {
        if (layer < 0 || layer >= model.stacks[0].layers) broken("a layer outside the stack", model.family);
        ++owners[static_cast<std::size_t>(layer)];
      }
    }
    for (const int n : owners)
      if (n != 1) broken("a layer in no kind or in two", model.family);
    const auto specs = pe::convert::layer_specs(model);
    (void)pe::convert::specs_text(specs);
    (void)pe::convert::specs_json(specs).dump();
    for (const auto& s : specs) {
      const std::string text = s.spec.text();
      if (pe::parse_spec(text).text() != text) broken("spec text does not read back to itself", text);
      if (pe::parse_spec_json(s.spec.json()).text() != text) broken("JSON twin does not read back to the spec", text);
      for (const auto& n : s.notes)
        if (n.find('\n') != std::string::npos) broken("note with a newline", n);
    }
  });
  return 0;
}
