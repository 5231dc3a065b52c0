// config.json to model_positions: parsed under the depth limit, the text config found, the family's reader called.
#include "convert/hf_config.hpp"

#include <fmt/format.h>

#include "convert/hf_families.hpp"
#include "convert/hf_readers.hpp"
#include "pe/bounded_json.hpp"
#include "pe/error.hpp"

namespace pe::convert {

model_positions read_hf_config(std::string_view text, const std::string& file) {
  const nlohmann::json root = parse_json_bounded(text, file);
  if (!root.is_object()) throw input_error(fmt::format("{}: a config.json holds one JSON object, not {}", file, json_excerpt(root)));
  const config_node top(root, file, "");
  const auto model_type = top.text("model_type");
  if (!model_type) top.fail("model_type", "missing: the model family decides the position convention");
  const hf_family* family = find_family(*model_type);
  if (!family) {
    top.fail("model_type", fmt::format("'{}' is not a family whose position convention pecheck knows (known: {})", excerpt(*model_type),
                                       fmt::join(known_model_types(), ", ")));
  }
  const auto text_config = top.child("text_config");
  const config_node& cfg = text_config ? *text_config : top;
  switch (family->reader) {
    case hf_reader::rotary: return read_rotary_family(cfg, *family);
    case hf_reader::llama4: return read_llama4(cfg, *family);
    case hf_reader::deepseek: return read_deepseek(cfg, *family);
    case hf_reader::falcon:
      // HF's FalconConfig: alibi defaults to false; rotary is `not alibi`.
      if (cfg.flag("alibi").value_or(false)) return read_alibi(cfg, *family, "HF's modeling_falcon with alibi=true: the paper's slopes on -slope (i - j)");
      return read_rotary_family(cfg, *family);
    case hf_reader::bloom:
      return read_alibi(cfg, *family,
                        "BLOOM always uses ALiBi, the paper's slopes; HF's build_alibi_tensor adds slope x key position: the scores differ "
                        "from -slope (i - j) by a constant per query row, which softmax ignores");
    case hf_reader::mpt: return read_mpt(cfg, *family);
    case hf_reader::t5: return read_t5(cfg, *family);
    case hf_reader::deberta: return read_deberta(cfg, *family);
  }
  throw input_error(fmt::format("{}: model_type '{}' has no reader", file, *model_type));
}

}  // namespace pe::convert
