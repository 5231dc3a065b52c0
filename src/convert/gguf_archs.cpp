// llama.cpp's rope type per architecture (llama_model_rope_type in llama.cpp's src/llama-model.cpp), for the architectures pecheck maps.
#include "convert/gguf_archs.hpp"

#include <array>

#include <fmt/format.h>

namespace pe::convert {
namespace {

// From llama.cpp's llama_model_rope_type() (src/llama-model.cpp), names as LLM_ARCH_NAMES spells
// them (src/llama-arch.cpp). gemma3 and llama4 have layers set apart in llama.cpp's code rather
// than in the file (gguf_model.cpp reads them, citing the code); llama4's converter keeps HF's q
// and k rows (undo_permute = False in convert_hf_to_gguf.py's Llama4Model). bloom and mpt are NONE
// there, with ALiBi applied in the softmax.
constexpr std::array archs{
    gguf_arch{"llama", gguf_positions::norm, gguf_layering::uniform, true, gguf_tensor_scaling::llama3_rope_freqs},
    gguf_arch{"baichuan", gguf_positions::norm},
    gguf_arch{"internlm2", gguf_positions::norm},  gguf_arch{"olmo", gguf_positions::norm},
    gguf_arch{"granite", gguf_positions::norm},    gguf_arch{"command-r", gguf_positions::norm},
    gguf_arch{"falcon", gguf_positions::neox},     gguf_arch{"stablelm", gguf_positions::neox},
    gguf_arch{"qwen", gguf_positions::neox},       gguf_arch{"qwen2", gguf_positions::neox},
    gguf_arch{"qwen2moe", gguf_positions::neox},   gguf_arch{"qwen3", gguf_positions::neox},
    gguf_arch{"qwen3moe", gguf_positions::neox},   gguf_arch{"phi2", gguf_positions::neox},
    gguf_arch{"phi3", gguf_positions::neox, gguf_layering::uniform, true, gguf_tensor_scaling::longrope_factors},
    gguf_arch{"gemma", gguf_positions::neox},
    gguf_arch{"gemma2", gguf_positions::neox},     gguf_arch{"starcoder2", gguf_positions::neox},
    gguf_arch{"gptneox", gguf_positions::neox},    gguf_arch{"olmo2", gguf_positions::neox},
    gguf_arch{"qwen2vl", gguf_positions::mrope},   gguf_arch{"bloom", gguf_positions::alibi},
    gguf_arch{"mpt", gguf_positions::alibi},
    gguf_arch{"gemma3", gguf_positions::neox, gguf_layering::gemma3},
    gguf_arch{"llama4", gguf_positions::norm, gguf_layering::llama4, false, gguf_tensor_scaling::llama3_rope_freqs},
};

}  // namespace

const gguf_arch* find_gguf_arch(std::string_view name) {
  for (const auto& a : archs)
    if (a.name == name) return &a;
  return nullptr;
}

std::vector<std::string_view> known_gguf_archs() {
  std::vector<std::string_view> out;
  for (const auto& a : archs) out.push_back(a.name);
  return out;
}

std::string gguf_layout_note(const gguf_arch& arch) {
  switch (arch.positions) {
    case gguf_positions::norm:
      if (!arch.permuted) {
        return fmt::format("layout=gptj: llama.cpp rotates {} with LLAMA_ROPE_TYPE_NORM, adjacent pairs (2i, 2i + 1), on q and k rows its "
                           "converter left as HF's, whose model rotates the same pairs (layout=gptj in spec from-hf too)",
                           arch.name);
      }
      // The spec describes the GGUF kernel on the GGUF file's own tensors, not HF's model.
      return fmt::format("layout=gptj: llama.cpp rotates {} with LLAMA_ROPE_TYPE_NORM, adjacent pairs (2i, 2i + 1), on the file's own q "
                         "and k weights, which its converter permuted from HF's: on HF's unpermuted weights the same model is "
                         "rotate_half (layout=neox, what spec from-hf prints)",
                         arch.name);
    case gguf_positions::neox:
      return fmt::format("layout=neox: llama.cpp rotates {} with LLAMA_ROPE_TYPE_NEOX, pairs (i, i + r/2), as HF's rotate_half", arch.name);
    case gguf_positions::mrope:
      return fmt::format("mrope: llama.cpp rotates {} with LLAMA_ROPE_TYPE_MROPE, pairs (i, i + d/2), pair i reading the t, h or w "
                         "position row by dimension_sections' contiguous blocks",
                         arch.name);
    case gguf_positions::alibi: break;
  }
  return {};
}

}  // namespace pe::convert
