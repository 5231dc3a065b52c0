// Fuzz target: the GGUF metadata reader (spec from-gguf). Any bytes are a model or one clean error; an accepted model's specs read back to themselves.
#include "fuzz_support.hpp"

#include <sstream>

#include "convert/gguf_model.hpp"
#include "convert/layer_specs.hpp"
#include "pe/limits.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace pecheck::fuzz;
  // A few thousand layers reach every path; 10^7 (the default) would make each run slow.
  static const bool limited = (pe::set_limit("list=4096"), true);
  (void)limited;
  expect_clean([&] {
    std::istringstream in(std::string(text_of(data, size)));
    const auto model = pe::convert::read_gguf(in, size, "fuzz.gguf");
    // One stack, one kind, every layer in it.
    if (model.stacks.size() != 1 || model.kinds.size() != 1) broken("not one stack of one kind", model.family);
    if (static_cast<std::int64_t>(model.kinds[0].layers.size()) != model.stacks[0].layers) broken("a layer in no kind", model.family);
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
