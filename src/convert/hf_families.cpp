// The known model families: reader, rotation pairing, default theta, and the line of HF's code each convention comes from.
#include "convert/hf_families.hpp"

#include <array>

namespace pe::convert {
namespace {

// Facts from HF transformers' model files (v4.4x-v5): which function rotates q and k, and the
// config class's rope_theta default. default_theta 0: the config must give rope_theta (no
// default is taken where the class's default is not certain).
constexpr auto half = rotary_pairs::rotate_half;
constexpr auto pairs2 = rotary_pairs::interleaved;

constexpr std::string_view llama_half = "layout=neox: HF's modeling_llama rotates with rotate_half, pairs (i, i + d/2); Meta's interleaved checkpoints are permuted to it when converted";
constexpr std::string_view mistral_half = "layout=neox: HF's modeling_mistral rotates with rotate_half, pairs (i, i + d/2)";
constexpr std::string_view qwen_half = "layout=neox: HF's modeling_qwen2/qwen3 rotate with rotate_half, pairs (i, i + d/2)";
constexpr std::string_view gemma_half = "layout=neox: HF's modeling_gemma/gemma2/gemma3 rotate with rotate_half, pairs (i, i + d/2)";
constexpr std::string_view phi_half = "layout=neox: HF's modeling_phi/phi3 rotate the first rotary dims with rotate_half, pairs (i, i + r/2)";
constexpr std::string_view neox_half = "layout=neox: HF's modeling_gpt_neox rotates the first rotary_pct of each head with rotate_half, pairs (i, i + r/2)";
constexpr std::string_view gptj_pairs = "layout=gptj: HF's modeling_gptj rotates the first rotary_dim dims with rotate_every_two, pairs (2i, 2i + 1)";
constexpr std::string_view falcon_half = "layout=neox: HF's modeling_falcon rotates with rotate_half, pairs (i, i + d/2)";
constexpr std::string_view other_half = "layout=neox: HF's model file rotates with rotate_half (copied from modeling_llama), pairs (i, i + r/2)";
constexpr std::string_view qwen2_vl_half = "mrope: HF's modeling_qwen2_vl rotates with rotate_half, pair i reading the t, h or w position row by mrope_section's contiguous blocks";
constexpr std::string_view qwen3_vl_half = "mrope: HF's modeling_qwen3_vl rotates with rotate_half, h and w rows interleaved every third pair (apply_interleaved_mrope)";
constexpr std::string_view deepseek_pairs =
    "layout=gptj: HF's modeling_deepseek_v3 (rope_interleave, its default) regroups the rope part's pairs (2i, 2i + 1) into halves, then "
    "rotate_half: the scores are gptj's; its rotated q_pe, k_pe come out in the regrouped order";
constexpr std::string_view llama4_pairs = "layout=gptj: HF's modeling_llama4 rotates through torch.view_as_complex, pairs (2i, 2i + 1)";

constexpr std::array families{
    hf_family{"llama", hf_reader::rotary, half, 10000, llama_half},
    hf_family{"mistral", hf_reader::rotary, half, 10000, mistral_half},
    hf_family{"mixtral", hf_reader::rotary, half, 0, mistral_half},
    hf_family{"qwen2", hf_reader::rotary, half, 10000, qwen_half},
    hf_family{"qwen2_moe", hf_reader::rotary, half, 0, qwen_half},
    hf_family{"qwen3", hf_reader::rotary, half, 0, qwen_half},
    hf_family{"qwen3_moe", hf_reader::rotary, half, 0, qwen_half},
    hf_family{"qwen2_vl", hf_reader::rotary, half, 0, qwen2_vl_half},
    hf_family{"qwen2_5_vl", hf_reader::rotary, half, 0, qwen2_vl_half},
    hf_family{"qwen3_vl", hf_reader::rotary, half, 0, qwen3_vl_half},
    hf_family{"qwen3_vl_text", hf_reader::rotary, half, 0, qwen3_vl_half},
    hf_family{"qwen3_vl_moe", hf_reader::rotary, half, 0, qwen3_vl_half},
    hf_family{"gemma", hf_reader::rotary, half, 10000, gemma_half},
    hf_family{"gemma2", hf_reader::rotary, half, 10000, gemma_half},
    hf_family{"gemma3", hf_reader::rotary, half, 1000000, gemma_half},
    hf_family{"gemma3_text", hf_reader::rotary, half, 1000000, gemma_half},
    hf_family{"phi", hf_reader::rotary, half, 10000, phi_half},
    hf_family{"phi3", hf_reader::rotary, half, 10000, phi_half},
    hf_family{"stablelm", hf_reader::rotary, half, 10000, other_half},
    hf_family{"starcoder2", hf_reader::rotary, half, 10000, other_half},
    hf_family{"olmo", hf_reader::rotary, half, 10000, other_half},
    hf_family{"olmo2", hf_reader::rotary, half, 10000, other_half},
    hf_family{"gpt_neox", hf_reader::rotary, half, 10000, neox_half},
    hf_family{"gptj", hf_reader::rotary, pairs2, 10000, gptj_pairs},
    hf_family{"falcon", hf_reader::falcon, half, 10000, falcon_half},
    hf_family{"deepseek_v3", hf_reader::deepseek, pairs2, 10000, deepseek_pairs},
    hf_family{"llama4", hf_reader::llama4, pairs2, 500000, llama4_pairs},
    hf_family{"llama4_text", hf_reader::llama4, pairs2, 500000, llama4_pairs},
    hf_family{"bloom", hf_reader::bloom, half, 0, {}},
    hf_family{"mpt", hf_reader::mpt, half, 0, {}},
    hf_family{"t5", hf_reader::t5, half, 0, {}},
    hf_family{"mt5", hf_reader::t5, half, 0, {}},
    hf_family{"deberta-v2", hf_reader::deberta, half, 0, {}},
};

}  // namespace

const hf_family* find_family(std::string_view model_type) {
  for (const auto& f : families)
    if (f.model_type == model_type) return &f;
  return nullptr;
}

std::vector<std::string_view> known_model_types() {
  std::vector<std::string_view> out;
  for (const auto& f : families) out.push_back(f.model_type);
  return out;
}

}  // namespace pe::convert
